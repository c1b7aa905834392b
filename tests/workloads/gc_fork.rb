# frozen_string_literal: true
# SPDX-License-Identifier: GPL-2.0
#
# gc_fork.rb: a preforking Ruby workload for cowtop's USDT tests.
#
# The parent allocates many long-lived objects (arrays of strings), runs the
# garbage collector until they are old, then forks children. Each child runs
# GC.start a few times: a full mark writes the mark bitmaps of every heap page
# that holds the parent's objects, so the child copies pages it never wrote
# from Ruby code; those copies are made between the ruby:gc__mark__begin and
# ruby:gc__mark__end probes of libruby. Then the child changes a few of the
# parent's strings, and leaves with exit! (no at_exit handlers, no teardown).
#
# Children start after --start-delay (200 ms by default), so that a tracer that
# finds libruby's probes once the program is mapped has attached by then. Each
# child waits --pre-gc-delay (0 by default) before its first GC.start, so that
# an observer can read its memory while it still shares everything, and sleeps
# --linger seconds before leaving, so that it can read it again.
#
# Report lines (appended to --report FILE, else printed on stdout):
#   main PID ppid PPID role main objects N
#   child PID ppid PPID role gc index I      (written by the parent)
#   dirty PID before KIB after KIB           (written by the child: its
#                                             Private_Dirty from
#                                             /proc/self/smaps_rollup before
#                                             the first GC.start and before
#                                             leaving)
#   gc PID begin T end T                     (written by the child: unix
#                                             time before the first GC.start
#                                             and after the last one)
#
# usage: ruby gc_fork.rb [--children N] [--objects N] [--gc-runs N]
#                        [--writes N] [--start-delay MS]
#                        [--pre-gc-delay MS] [--linger S] [--report FILE]
#                        [--compact]

require 'optparse'

opts = {
  children: 3,
  objects: 200_000,
  gc_runs: 3,
  writes: 1000,
  start_delay: 200,
  pre_gc_delay: 0,
  linger: 0.0,
  compact: false,
  report: nil
}

begin
  OptionParser.new do |o|
    o.banner = 'usage: ruby gc_fork.rb [OPTIONS]'
    o.on('--children N', Integer, 'children to fork (default 3)') { |v| opts[:children] = v }
    o.on('--objects N', Integer, 'arrays of two strings the parent allocates (default 200000)') do |v|
      opts[:objects] = v
    end
    o.on('--gc-runs N', Integer, 'GC.start runs in each child (default 3)') { |v| opts[:gc_runs] = v }
    o.on('--writes N', Integer, "strings of the parent's each child changes (default 1000)") do |v|
      opts[:writes] = v
    end
    o.on('--start-delay MS', Integer, 'sleep before the first fork (default 200)') do |v|
      opts[:start_delay] = v
    end
    o.on('--pre-gc-delay MS', Integer, 'children sleep before their first GC.start (default 0)') do |v|
      opts[:pre_gc_delay] = v
    end
    o.on('--linger S', Float, 'children sleep S seconds before leaving') { |v| opts[:linger] = v }
    o.on('--report FILE', 'append report lines to FILE') { |v| opts[:report] = v }
    o.on('--compact', 'GC.compact in the parent before forking') { opts[:compact] = true }
  end.parse!(ARGV)
  raise OptionParser::InvalidArgument, ARGV.first unless ARGV.empty?
  raise OptionParser::InvalidArgument, 'negative count' if opts.values_at(:children, :objects, :gc_runs,
                                                                          :writes, :start_delay,
                                                                          :pre_gc_delay).any?(&:negative?)
rescue OptionParser::ParseError => e
  warn "gc_fork.rb: #{e.message} (see --help)"
  exit 2
end

# Append one line to the report (one write, so lines of processes never mix).
def report(opts, line)
  if opts[:report]
    File.open(opts[:report], 'a') { |f| f.syswrite("#{line}\n") }
  else
    $stdout.syswrite("#{line}\n")
  end
end

# Private_Dirty of this process in KiB (nil if unknown).
def private_dirty_kib
  File.foreach('/proc/self/smaps_rollup') do |l|
    return l.split[1].to_i if l.start_with?('Private_Dirty:')
  end
  nil
rescue SystemCallError
  nil
end

# The child: collect a few times, change a few strings, leave without teardown.
def child(opts, objs)
  sleep(opts[:pre_gc_delay] / 1000.0)
  before = private_dirty_kib
  t_begin = Time.now.to_f
  opts[:gc_runs].times { GC.start(full_mark: true, immediate_sweep: true) }
  t_end = Time.now.to_f
  step = [objs.size / [opts[:writes], 1].max, 1].max
  opts[:writes].times { |i| objs[(i * step) % objs.size][1].setbyte(0, 0x41 + (i % 26)) } unless objs.empty?
  report(opts, "dirty #{Process.pid} before #{before || -1} after #{private_dirty_kib || -1}")
  report(opts, format('gc %<pid>d begin %<b>.6f end %<e>.6f', pid: Process.pid, b: t_begin, e: t_end))
  sleep(opts[:linger]) if opts[:linger].positive?
  exit!(0)
end

report(opts, "main #{Process.pid} ppid #{Process.ppid} role main objects #{opts[:objects]}")
objs = Array.new(opts[:objects]) { |i| [i.to_s, +"value-#{i}-#{'x' * (i % 16)}"] }
# old objects: a later minor GC in the parent would not touch them
4.times { GC.start }
GC.compact if opts[:compact]
sleep(opts[:start_delay] / 1000.0)

pids = Array.new(opts[:children]) do |i|
  pid = fork { child(opts, objs) }
  report(opts, "child #{pid} ppid #{Process.pid} role gc index #{i}")
  pid
end
failed = pids.count { |pid| !Process.wait2(pid)[1].success? }
warn "gc_fork.rb: #{failed} children failed" if failed.positive?
exit(failed.zero? ? 0 : 1)
