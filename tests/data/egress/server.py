# The egress tests' web server: serves a directory on the given ports (all addresses), plus
# /host, which answers with the Host header it received. Writes READY_FILE once listening.
import http.server
import os
import sys
import threading


class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/host":
            body = (self.headers.get("Host") or "").encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256


root, ready, ports = sys.argv[1], sys.argv[2], sys.argv[3:]
os.chdir(root)
servers = [Server(("0.0.0.0", int(p)), Handler) for p in ports]
for s in servers[1:]:
    threading.Thread(target=s.serve_forever, daemon=True).start()
open(ready, "w").close()
servers[0].serve_forever()
