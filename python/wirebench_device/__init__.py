"""wirebench_device: device-side codecs of the wirebench project.

Runs unchanged on CPython >= 3.8 and on MicroPython. The package import is
kept empty on purpose (so ``python3 -m wirebench_device.pson`` does not import
the module twice); use the codec modules directly::

    from wirebench_device import pson
    data = pson.dumps({"temp": 21.5})
    value = pson.loads(data)

    from wirebench_device import uadp          # OPC UA PubSub UADP (+ JSON mapping)
    msg = uadp.decode(uadp_bytes)
    text = uadp.to_json(msg)
"""

__version__ = "0.1.0"
