"""The application: the runner that joins a card source, the core and the consumers."""
