#!/usr/bin/env python3
"""CDR byte oracle for a ROS 2 style sensor_msgs/msg/Imu: cyclonedds-python (11.0.1) classes
written by hand, independently of the IDL fixture the Rust side reads
(crates/wirebench-codecs/tests/idl/ros2/sensor_msgs/msg/Imu.idl and its includes).

  ros2_imu_oracle.py gen N SEED
      N random Imu values, one JSON line each: {"value": the Imu as JSON, "xcdr1": hex,
      "xcdr2": hex}, the bytes from cyclonedds' serialize() (little endian, with the
      encapsulation header); each is deserialized again and checked to give the value back.

Exit status 3 (with a message on stderr) when cyclonedds is not importable:
`pip install cyclonedds==11.0.1`.
"""

import json
import random
import sys
from dataclasses import dataclass

try:
    from cyclonedds.idl import IdlStruct
    from cyclonedds.idl import types
    from cyclonedds.idl._support import Endianness
except Exception as e:  # pragma: no cover - depends on the machine
    print(f"ros2_imu_oracle.py: cyclonedds is not importable ({e}); pip install cyclonedds==11.0.1",
          file=sys.stderr)
    sys.exit(3)


@dataclass
class Time(IdlStruct, typename="builtin_interfaces::msg::Time"):
    sec: types.int32
    nanosec: types.uint32


@dataclass
class Header(IdlStruct, typename="std_msgs::msg::Header"):
    stamp: Time
    frame_id: str


@dataclass
class Quaternion(IdlStruct, typename="geometry_msgs::msg::Quaternion"):
    x: types.float64
    y: types.float64
    z: types.float64
    w: types.float64


@dataclass
class Vector3(IdlStruct, typename="geometry_msgs::msg::Vector3"):
    x: types.float64
    y: types.float64
    z: types.float64


@dataclass
class Imu(IdlStruct, typename="sensor_msgs::msg::Imu"):
    header: Header
    orientation: Quaternion
    orientation_covariance: types.array[types.float64, 9]
    angular_velocity: Vector3
    angular_velocity_covariance: types.array[types.float64, 9]
    linear_acceleration: Vector3
    linear_acceleration_covariance: types.array[types.float64, 9]


def rand_imu(r):
    f = lambda: r.choice([0.0, -1.0, 0.5, r.uniform(-10, 10), r.uniform(-1e9, 1e9)])
    frame = "".join(r.choice("abcdefghijklmnopqrstuvwxyz_/0123456789") for _ in range(r.randrange(0, 24)))
    if r.random() < 0.2:
        frame = "imu_link"
    return Imu(
        header=Header(stamp=Time(sec=r.randrange(-(2**31), 2**31), nanosec=r.randrange(0, 10**9)), frame_id=frame),
        orientation=Quaternion(f(), f(), f(), f()),
        orientation_covariance=[f() for _ in range(9)],
        angular_velocity=Vector3(f(), f(), f()),
        angular_velocity_covariance=[f() for _ in range(9)],
        linear_acceleration=Vector3(f(), f(), f()),
        linear_acceleration_covariance=[f() for _ in range(9)],
    )


def as_json(v):
    if isinstance(v, IdlStruct):
        return {k: as_json(getattr(v, k)) for k in v.__dataclass_fields__}
    if isinstance(v, list):
        return [as_json(x) for x in v]
    return v


def main():
    if len(sys.argv) != 4 or sys.argv[1] != "gen":
        raise SystemExit("usage: ros2_imu_oracle.py gen N SEED")
    r = random.Random(int(sys.argv[3]))
    for _ in range(int(sys.argv[2])):
        v = rand_imu(r)
        x1 = v.serialize(endianness=Endianness.Little, use_version_2=False)
        x2 = v.serialize(endianness=Endianness.Little, use_version_2=True)
        for data in (x1, x2):
            if Imu.deserialize(data) != v:
                raise SystemExit(f"cyclonedds does not read its own bytes back: {v!r}")
        print(json.dumps({"value": as_json(v), "xcdr1": x1.hex(), "xcdr2": x2.hex()}))


if __name__ == "__main__":
    main()
