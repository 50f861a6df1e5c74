# Benchmark server: answers every GET with the file named by the path (sendfile, so the server
# is not what limits throughput), then closes the connection. Prints its port.
import os
import socket
import sys
import threading

root = sys.argv[1]
sock = socket.socket()
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind(("127.0.0.1", 0))
sock.listen(1024)
print(sock.getsockname()[1], flush=True)


def serve(conn):
    with conn:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return
            data += chunk
        path = data.split(b" ", 2)[1].decode().lstrip("/")
        with open(os.path.join(root, path), "rb") as f:
            size = os.fstat(f.fileno()).st_size
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % size)
            conn.sendfile(f)


while True:
    c, _ = sock.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
