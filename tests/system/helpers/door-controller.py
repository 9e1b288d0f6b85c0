#!/usr/bin/env python3
"""A controller for the door-gpio case: grants the one PIN it reads from stdin, denies
every other code, and records each message from pinpadd with the CLOCK_MONOTONIC time
it arrived, plus the time of each verdict it sent (for grant-to-relay latency).

Usage: door-controller.py SOCKET MESSAGES VERDICTS   (the PIN on stdin, one line)
MESSAGES gets "MONO_NS JSON" per message, with the code of `code` messages replaced by
"-" (so the files the case greps hold no digit of it); VERDICTS "MONO_NS ID RESULT"."""
import json
import socket
import sys
import time

pin = sys.stdin.readline().strip()
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(sys.argv[1])
messages = open(sys.argv[2], "a")
verdicts = open(sys.argv[3], "a")
buffer = b""
while True:
    data = sock.recv(65536)
    if not data:
        break
    buffer += data
    while b"\n" in buffer:
        line, buffer = buffer.split(b"\n", 1)
        now = time.monotonic_ns()
        message = json.loads(line)
        if message.get("type") == "code":
            result = "granted" if message.get("code") == pin else "denied"
            message["code"] = "-"
            stamp = time.monotonic_ns()
            sock.sendall(json.dumps({"type": "verdict", "id": message["id"], "result": result}).encode() + b"\n")
            verdicts.write("%d %s %s\n" % (stamp, message["id"], result))
            verdicts.flush()
        messages.write("%d %s\n" % (now, json.dumps(message, separators=(",", ":"))))
        messages.flush()
