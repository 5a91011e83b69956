"""Card sources chosen by URL, as pyserial's ``serial_for_url``.

``mock://?seed=42&decks=8``, ``serial:///dev/ttyUSB0?baudrate=9600``,
``pcsc://?reader=...``. The registry maps a scheme to the module that serves
it and imports that module only when a URL asks for it, so optional
dependencies (pyscard) are needed only by those who use them.
"""

from __future__ import annotations

import importlib
from urllib.parse import urlsplit

from controller.core.exceptions import DriverURLError
from drivers.base import CardSource

DRIVERS: dict[str, tuple[str, str]] = {
    "mock": ("drivers.mock", "MockShoe"),
    "serial": ("drivers.serial.driver", "SerialShoe"),
    "socket": ("drivers.serial.driver", "SerialShoe"),
    "loop": ("drivers.serial.driver", "SerialShoe"),
    "pcsc": ("drivers.pcsc.source", "PcscCardSource"),
}
"""scheme -> (module, class name)."""


def driver_class(url: str) -> type[CardSource]:
    """The class that serves ``url``, importing its module on first use."""
    scheme = urlsplit(url).scheme
    if not scheme or scheme not in DRIVERS:
        known = ", ".join(f"{name}://" for name in DRIVERS)
        raise DriverURLError(f"{url!r}: unknown driver scheme {scheme!r}; expected one of {known}")
    module_name, class_name = DRIVERS[scheme]
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise DriverURLError(
            f"{url!r}: the {scheme}:// driver needs a package that is not installed ({error}); "
            f"install it, e.g. pip install 'croupier[{'pcsc' if scheme == 'pcsc' else scheme}]'"
        ) from None
    cls: type[CardSource] = getattr(module, class_name)
    return cls


def open_source(url: str) -> CardSource:
    """Open the card source a URL names."""
    return driver_class(url)(url)


__all__ = ["DRIVERS", "CardSource", "driver_class", "open_source"]
