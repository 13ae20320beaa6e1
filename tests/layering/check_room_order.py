#!/usr/bin/env python3
"""Fails when a file in src/ includes a header of a room above its own.

The rooms, lowest first (docs/architecture.md, "Rooms"); a room may include
its own headers and those of any room on a lower level, never one on its own
level or above:

    common -> protocol, record -> security -> storage -> raft -> metadata -> net
           -> cluster -> coordinator -> server -> tools -> main.cc

Every room compiles with the include path src/, so a header-only type from a
higher room would build and link; this check is what keeps the order.
Usage: check_room_order.py [SRC_DIR]
"""
import os
import re
import sys

LEVELS = [
    ["common"],
    ["protocol", "record"],
    ["security"],
    ["storage"],
    ["raft"],
    ["metadata"],
    ["net"],
    ["cluster"],
    ["coordinator"],
    ["server"],
    ["tools"],
    ["main.cc"],
]
LEVEL = {room: i for i, rooms in enumerate(LEVELS) for room in rooms}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/')


def room_of(src, path):
    first = os.path.relpath(path, src).split(os.sep)[0]
    return first


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "src")
    src = os.path.abspath(src)
    problems = []
    checked = 0
    for dirpath, _, files in os.walk(src):
        for name in files:
            if not name.endswith((".h", ".cc")):
                continue
            path = os.path.join(dirpath, name)
            room = room_of(src, path)
            if room not in LEVEL:
                if os.path.dirname(path) == src:
                    continue  # src/version.h and the like: shared by every room
                problems.append(f"{path}: room '{room}' has no level in this check")
                continue
            checked += 1
            with open(path, encoding="utf-8", errors="replace") as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1)
                    if target == room or target not in LEVEL:
                        continue
                    if LEVEL[target] >= LEVEL[room]:
                        rel = os.path.relpath(path, src)
                        problems.append(f"src/{rel}:{lineno}: room '{room}' includes "
                                        f"'{target}', which is not below it")
    for p in problems:
        print(p)
    if checked == 0:
        print(f"no sources found under {src}")
        return 1
    print(f"{checked} files checked, {len(problems)} upward includes")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
