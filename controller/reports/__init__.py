"""Reports read from journals and the floor archive: dealers and game pace (``croupier report``)."""
