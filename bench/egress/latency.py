# Per-connection latency: N sequential requests for a tiny file, each on a new connection;
# prints the median time from connect() to the last byte of the response, in microseconds.
# Usage: latency.py HOST PORT N [http-proxy|connect-proxy|socks5-proxy|direct] [PROXY_PORT]
import socket
import statistics
import sys
import time

host, port, n, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
proxy = ("127.0.0.1", int(sys.argv[5])) if len(sys.argv) > 5 else None
# The proxy checks the Host header of requests in a tunnel against the policy: send the real one.
request = b"GET /tiny HTTP/1.1\r\nHost: %s:%d\r\nConnection: close\r\n\r\n" % (host.encode(), port)


def read_response(s):
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            return data
        data += chunk


def once():
    t0 = time.perf_counter()
    if mode == "direct":
        s = socket.create_connection((host, port))
        s.sendall(request)
    elif mode == "http-proxy":
        s = socket.create_connection(proxy)
        s.sendall(b"GET http://%s:%d/tiny HTTP/1.1\r\n\r\n" % (host.encode(), port))
    elif mode == "connect-proxy":
        s = socket.create_connection(proxy)
        s.sendall(b"CONNECT %s:%d HTTP/1.1\r\n\r\n" % (host.encode(), port))
        buf = b""
        while b"\r\n\r\n" not in buf:
            buf += s.recv(4096)
        s.sendall(request)
    else:  # socks5-proxy
        s = socket.create_connection(proxy)
        s.sendall(b"\x05\x01\x00")
        s.recv(2)
        addr = socket.inet_aton(host)
        s.sendall(b"\x05\x01\x00\x01" + addr + port.to_bytes(2, "big"))
        s.recv(10)
        s.sendall(request)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    body = read_response(s)
    s.close()
    assert body.endswith(b"tiny\n"), body
    return time.perf_counter() - t0


for _ in range(20):  # warm-up
    once()
print(int(statistics.median(once() for _ in range(n)) * 1e6))
