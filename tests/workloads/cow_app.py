"""A WSGI app for gunicorn --preload: the master builds a 32 MiB buffer
(every page written, so shared after fork), and each request writes one
byte in each of the next PAGES_PER_REQUEST pages of it (the worker copies
them; it walks the whole buffer over about 32 requests) and allocates some
short-lived objects (reference counts and the allocator write into pages
the worker inherited). A request lasts at least 20 ms: with as many
clients as workers, each worker gets its share."""
import os
import time

PAGE = 4096
SHARED = bytearray(b"x" * (32 << 20))
PAGES = len(SHARED) // PAGE
PAGES_PER_REQUEST = 256
_next_page = 0


def app(environ, start_response):
    """Write the next pages of the shared buffer; answer with the pid."""
    global _next_page
    for _ in range(PAGES_PER_REQUEST):
        SHARED[(_next_page % PAGES) * PAGE] = 1
        _next_page += 1
    junk = [f"object {i}" * 4 for i in range(2000)]
    time.sleep(0.02)
    body = f"{os.getpid()} {_next_page} {len(junk)}\n".encode()
    start_response("200 OK", [("Content-Type", "text/plain"),
                              ("Content-Length", str(len(body)))])
    return [body]
