# A rack app for unicorn with preload_app: the master builds a 32 MiB
# string (every page written, so shared after fork), and each request
# writes one byte in each of the next PAGES_PER_REQUEST pages of it (the
# worker copies them; it walks the whole string over about 32 requests),
# and allocates some short-lived objects (the garbage collector runs, and
# writes into heap pages the worker inherited). A request lasts at least
# 20 ms: with as many clients as workers, each worker gets its share
# (a free unicorn worker otherwise takes most connections).
SHARED = "x" * (32 << 20)
PAGE = 4096
PAGES = SHARED.bytesize / PAGE
PAGES_PER_REQUEST = 256
$next_page = 0

run lambda { |_env|
  PAGES_PER_REQUEST.times do
    SHARED.setbyte(($next_page % PAGES) * PAGE, 1)
    $next_page += 1
  end
  junk = Array.new(2000) { |i| "object #{i}" * 4 }
  sleep 0.02
  [200, { "content-type" => "text/plain" }, ["#{Process.pid} #{$next_page} #{junk.size}\n"]]
}
