"""wirebench_device: device-side codecs of the wirebench project.

Runs unchanged on CPython >= 3.8 and on MicroPython. The package import is
kept empty on purpose (so ``python3 -m wirebench_device.pson`` does not import
the module twice); use the codec module directly::

    from wirebench_device import pson
    data = pson.dumps({"temp": 21.5})
    value = pson.loads(data)
"""

__version__ = "0.1.0"
