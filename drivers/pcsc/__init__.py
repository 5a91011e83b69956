"""PC/SC readers: NFC-tagged cards and staff badges."""
