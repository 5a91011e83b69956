"""Card sources chosen by URL, as pyserial's ``serial_for_url``.

``mock://?seed=42&decks=8``, ``serial:///dev/ttyUSB0?baudrate=9600``,
``pcsc://?reader=...``. The registry maps a scheme to the module that serves
it and imports that module only when a URL asks for it, so optional
dependencies (pyscard) are needed only by those who use them.

A vendor's driver plugs in without editing Croupier, as a python-can
interface does: its package declares an entry point in the group
``croupier.drivers`` whose name is the URL scheme and whose value is the
:class:`~drivers.base.CardSource` subclass serving it::

    [project.entry-points."croupier.drivers"]
    vendor = "vendor_shoe:VendorShoe"

The built-in schemes cannot be taken over by a plugin.
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from controller.core.exceptions import DriverURLError, install_hint
from controller.i18n.message import message
from drivers.base import LOGGER, CardSource, Delivery, Indication, Option, Resumable

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

ENTRY_POINT_GROUP = "croupier.drivers"
"""The entry-point group a package declares its drivers in: name = scheme, value = ``module:Class``."""

DRIVERS: dict[str, tuple[str, str]] = {
    "mock": ("drivers.mock", "MockShoe"),
    "serial": ("drivers.serial.driver", "SerialShoe"),
    "socket": ("drivers.serial.driver", "SerialShoe"),
    "loop": ("drivers.serial.driver", "SerialShoe"),
    "pcsc": ("drivers.pcsc.source", "PcscCardSource"),
}
"""The built-in drivers: scheme -> (module, class name)."""


@functools.cache
def plugins() -> dict[str, EntryPoint]:
    """The installed plugin drivers: scheme -> entry point (not loaded); read when a URL names no built-in
    scheme (``importlib.metadata`` takes about 10 ms to import)."""
    from importlib.metadata import entry_points

    found: dict[str, EntryPoint] = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name in DRIVERS:
            import logging

            logging.getLogger(LOGGER).warning("the %s:// driver of %s is ignored: %s:// is built in",
                                              entry.name, entry.value, entry.name)
        else:
            found[entry.name] = entry
    return found


def schemes() -> list[str]:
    """Every scheme a URL may name: the built-in ones, then the plugins'."""
    return [*DRIVERS, *sorted(plugins())]


def driver_class(url: str) -> type[CardSource]:
    """The class that serves ``url``, importing its module on first use."""
    try:
        scheme = urlsplit(url).scheme
    except ValueError as error:  # an unclosed '[' (an IPv6 host), a host that is no host
        raise DriverURLError(message("driver.not_a_url", "{url}: not a URL ({reason}); expected a driver URL, one of "
                                     "{known}, e.g. mock://?seed=7", url=repr(url), reason=str(error),
                                     known=", ".join(f"{name}://" for name in schemes()))) from None
    if scheme in DRIVERS:
        return _builtin(url, scheme)
    entry = plugins().get(scheme) if scheme else None
    if entry is None:
        known = ", ".join(f"{name}://" for name in schemes())
        raise DriverURLError(message("driver.unknown_scheme", "{url}: unknown driver scheme {scheme}; expected one "
                                     "of {known}", url=repr(url), scheme=repr(scheme), known=known))
    return _plugin(url, scheme, entry)


def _builtin(url: str, scheme: str) -> type[CardSource]:
    module_name, class_name = DRIVERS[scheme]
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise DriverURLError(message(
            "driver.not_installed", "{url}: the {scheme}:// driver needs a package that is not installed ({error}); "
            "{install}", url=repr(url), scheme=scheme, error=str(error), install=install_hint(scheme)
        )) from None
    cls: type[CardSource] = getattr(module, class_name)
    return cls


def _plugin(url: str, scheme: str, entry: EntryPoint) -> type[CardSource]:
    package = entry.dist.name if entry.dist is not None else entry.value
    try:
        loaded = entry.load()
    except Exception as error:  # a plugin's import may fail in any way: name it, with the package
        raise DriverURLError(f"{url!r}: the {scheme}:// driver {entry.value} of package {package} "
                             f"cannot be loaded ({type(error).__name__}: {error}); reinstall or fix it") from None
    if not (isinstance(loaded, type) and issubclass(loaded, CardSource)):
        raise DriverURLError(f"{url!r}: the {scheme}:// entry point {entry.value} of package {package} "
                             "is not a CardSource subclass; expected a class deriving from drivers.base.CardSource")
    if scheme not in loaded.schemes:
        raise DriverURLError(f"{url!r}: {entry.value} of package {package} does not declare the {scheme}:// "
                             f"scheme it is registered for (its schemes: {', '.join(loaded.schemes) or 'none'})")
    return loaded


def check_url(url: str) -> None:
    """Refuse ``url`` as opening it would for its scheme, form or options (:class:`DriverURLError`), without
    opening it: the device, reader or file it names need not be there. Imports only the module of its driver."""
    driver_class(url).check_url(url)


def open_source(url: str) -> CardSource:
    """Open the card source a URL names."""
    return driver_class(url)(url)


__all__ = ["DRIVERS", "ENTRY_POINT_GROUP", "CardSource", "Delivery", "Indication", "Option", "Resumable",
           "check_url", "driver_class", "open_source", "plugins", "schemes"]
