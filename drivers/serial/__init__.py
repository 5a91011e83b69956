"""Serial card shoes: the driver, framing, link layer and the shoe emulator."""
