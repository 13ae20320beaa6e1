#!/usr/bin/python3
"""Records the exact request frames a real client sends.

Starts a samsa broker (with the integration harness), puts a recording TCP
proxy in front of it (the broker advertises the proxy's address, so every
connection of the client goes through it), runs the given client command with
`{bootstrap}` replaced by the proxy's address, and writes every client→broker
frame as hex to the output directory:

    <out>/c<connection>_<n>_key<api_key>_v<api_version>.hex

Usage (from the repository root):
    /usr/bin/python3 tests/integration/tools/capture_frames.py --out /tmp/frames -- \\
        kcat -L -b {bootstrap} -t captured-topic

The fixtures in tests/unit/protocol/data/ were made this way.
"""
import argparse
import os
import socket
import struct
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from samsa_harness import Broker, free_ports  # noqa: E402


class RecordingProxy:
    def __init__(self, listen_port: int, upstream: tuple[str, int]):
        self.upstream = upstream
        self.server = socket.create_server(("127.0.0.1", listen_port))
        self.frames: list[tuple[int, int, bytes]] = []  # (connection, index, frame)
        self.lock = threading.Lock()
        self.threads: list[threading.Thread] = []
        self.conn_count = 0
        threading.Thread(target=self._accept_loop, daemon=True).start()

    def _accept_loop(self):
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            self.conn_count += 1
            upstream = socket.create_connection(self.upstream)
            n = self.conn_count
            for target in (lambda: self._record(n, client, upstream),
                           lambda: self._copy(upstream, client)):
                t = threading.Thread(target=target, daemon=True)
                t.start()
                self.threads.append(t)

    def _record(self, conn_no: int, src: socket.socket, dst: socket.socket):
        buf = b""
        index = 0
        while True:
            try:
                chunk = src.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            dst.sendall(chunk)
            buf += chunk
            while len(buf) >= 4:
                size = struct.unpack(">i", buf[:4])[0]
                if len(buf) < 4 + size:
                    break
                with self.lock:
                    self.frames.append((conn_no, index, buf[:4 + size]))
                index += 1
                buf = buf[4 + size:]
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    @staticmethod
    def _copy(src: socket.socket, dst: socket.socket):
        while True:
            try:
                chunk = src.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            try:
                dst.sendall(chunk)
            except OSError:
                break
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        self.server.close()


def hex_lines(data: bytes, width: int = 32) -> str:
    return "\n".join(data[i:i + width].hex() for i in range(0, len(data), width))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="directory for the .hex files")
    ap.add_argument("command", nargs=argparse.REMAINDER,
                    help="client command; {bootstrap} is replaced by the proxy address")
    args = ap.parse_args()
    command = [a for a in args.command if a != "--"]
    if not command:
        ap.error("no client command")
    os.makedirs(args.out, exist_ok=True)

    proxy_port = free_ports(1)[0]
    broker = Broker(overrides={"advertised.listeners": f"PLAINTEXT://127.0.0.1:{proxy_port}"})
    try:
        broker.start()
        proxy = RecordingProxy(proxy_port, (broker.host, broker.port))
        cmd = [a.replace("{bootstrap}", f"127.0.0.1:{proxy_port}") for a in command]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        print(f"$ {' '.join(cmd)}  (exit {res.returncode})\n{res.stdout}{res.stderr}")
        proxy.close()
        with proxy.lock:
            frames = list(proxy.frames)
        for conn_no, index, frame in frames:
            key, version = struct.unpack(">hh", frame[4:8])
            name = f"c{conn_no}_{index}_key{key}_v{version}.hex"
            with open(os.path.join(args.out, name), "w") as f:
                f.write(hex_lines(frame) + "\n")
            print(f"{name}: {len(frame)} bytes")
    finally:
        broker.cleanup()


if __name__ == "__main__":
    main()
