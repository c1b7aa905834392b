# frozen_string_literal: true
# SPDX-License-Identifier: GPL-2.0
#
# objfork.rb: a forking Ruby workload whose child copies pages by known kinds
# of write, for cowtop's --objects tests (the Ruby half of objfork.py).
#
# The master (the garbage collector disabled, so that its objects stay young)
# allocates --strings strings, each of 24 characters in a buffer of its own
# with room for more (not embedded in the slot), --arrays arrays of two
# integers (embedded in their slot), --widgets instances of Cowtest::Widget
# (T_OBJECT, two instance variables embedded in the slot) and --points of
# Cowtest::Point (a Struct: T_STRUCT, two members embedded), --anons widgets
# of an anonymous subclass of Cowtest::Widget and --singles widgets with a
# singleton method each (so a singleton class each). With --warmup N it runs GC.start N times
# before forking (what nakayoshi_fork does: the objects become old, so a
# later collection no longer writes their age into their flags word). It
# reports "ready" and waits until the file --go exists. Then it forks one
# child that does --mode and leaves with exit!:
#
#   gc      GC.start (full mark): a young object's age is in its flags word,
#           so marking writes the flags word of every young object; the mark
#           bitmaps live outside the heap pages
#   append  appends one character to each string: the character goes into
#           the string's buffer (outside the heap pages), its new length
#           into its slot (after the flags word)
#   ivars   sets an instance variable of each widget (anonymous and singleton
#           ones too) and a member of each point to another integer: written in the object's slot, after
#           its flags word and class; with --blind only of those in a heap
#           page whose 64 KiB-aligned address holds no heap page (Ruby
#           3.1's heap pages are 16 KiB: a reader taking them for 64 KiB
#           ones finds no page header there)
#
# The master waits for the child, then until the file --stop exists (so that
# a tracer can still read its memory). Report lines (appended to --report):
#   main PID strings N arrays N warmup N
#   heap PID pages N old N live N
#                        the 4 KiB pages of all heap pages, the objects
#                        already old (promoted), all live objects (GC.stat)
#   pages PID strings N arrays N buffers N widgets N points N anons N singles N
#                        distinct 4 KiB pages holding the strings' slots, the
#                        arrays' slots, the byte of each string's buffer an
#                        append writes first (by address), the widgets' and
#                        the points', the anonymous and the singleton widgets'
#                        slots (where ivars writes)
#   blind PID widgets N points N
#                        (--blind) the pages of the widgets and points
#                        ivars writes (heap pages are told from the
#                        addresses of all the objects ObjectSpace shows)
#   ready PID
#   child PID mode MODE
#   done PID dirty_before KIB dirty_after KIB
#
# usage: ruby objfork.rb --mode gc|append|ivars --go FILE --stop FILE --report FILE
#                        [--strings N] [--arrays N] [--widgets N] [--points N]
#                        [--anons N] [--singles N]
#                        [--warmup N] [--blind]

require 'fiddle'
require 'optparse'

opts = { mode: nil, strings: 50_000, arrays: 50_000, widgets: 0, points: 0, anons: 0, singles: 0, warmup: 0,
         blind: false, go: nil, stop: nil, report: nil }
begin
  OptionParser.new do |o|
    o.on('--mode MODE', %w[gc append ivars]) { |v| opts[:mode] = v }
    o.on('--strings N', Integer) { |v| opts[:strings] = v }
    o.on('--arrays N', Integer) { |v| opts[:arrays] = v }
    o.on('--widgets N', Integer) { |v| opts[:widgets] = v }
    o.on('--points N', Integer) { |v| opts[:points] = v }
    o.on('--anons N', Integer) { |v| opts[:anons] = v }
    o.on('--singles N', Integer) { |v| opts[:singles] = v }
    o.on('--warmup N', Integer) { |v| opts[:warmup] = v }
    o.on('--blind') { opts[:blind] = true }
    o.on('--go FILE') { |v| opts[:go] = v }
    o.on('--stop FILE') { |v| opts[:stop] = v }
    o.on('--report FILE') { |v| opts[:report] = v }
  end.parse!(ARGV)
  raise OptionParser::MissingArgument, 'mode, go, stop, report' if opts.values_at(:mode, :go, :stop, :report).any?(&:nil?)
rescue OptionParser::ParseError => e
  warn "objfork.rb: #{e.message}"
  exit 2
end

# Objects of the application's own classes, for the class names.
module Cowtest
  # A plain object (T_OBJECT) with two instance variables.
  class Widget
    def initialize
      @a = 1
      @b = 'x'
    end

    def touch
      @a = 2
    end
  end

  # A Struct (T_STRUCT) of two members.
  Point = Struct.new(:x, :y)
end

# Append one line to the report in one write(2).
def report(path, line)
  File.open(path, 'a') { |f| f.syswrite("#{line}\n") }
end

# Private_Dirty of this process in KiB (-1 if unknown).
def private_dirty_kib
  File.foreach('/proc/self/smaps_rollup') do |l|
    return l.split[1].to_i if l.start_with?('Private_Dirty:')
  end
  -1
rescue SystemCallError
  -1
end

# Report the pages the objects occupy, leave. Fiddle.dlwrap gives an
# object's address (its VALUE) without writing to it (object_id would set a
# flag); Fiddle::Pointer[s] the address of a string's buffer, where an
# appended character goes at its current length.
def measure(opts, strings, arrays, widgets, points, anons, singles)
  str_pages = strings.map { |s| Fiddle.dlwrap(s) >> 12 }.uniq.size
  arr_pages = arrays.map { |a| Fiddle.dlwrap(a) >> 12 }.uniq.size
  buf_pages = strings.map { |s| (Fiddle::Pointer[s].to_i + s.bytesize) >> 12 }.uniq.size
  wid_pages = widgets.map { |w| Fiddle.dlwrap(w) >> 12 }.uniq.size
  pt_pages = points.map { |p| Fiddle.dlwrap(p) >> 12 }.uniq.size
  an_pages = anons.map { |w| Fiddle.dlwrap(w) >> 12 }.uniq.size
  si_pages = singles.map { |w| Fiddle.dlwrap(w) >> 12 }.uniq.size
  report(opts[:report], "pages #{Process.ppid} strings #{str_pages} arrays #{arr_pages} buffers #{buf_pages} " \
                        "widgets #{wid_pages} points #{pt_pages} anons #{an_pages} singles #{si_pages}")
  blind(opts, widgets, points) if opts[:blind]
  exit!(0)
end

# Write the indexes of the widgets and points in a heap page whose 64 KiB-
# aligned address holds none (one line each) to the file REPORT.blind for
# the master, and report their pages.
def blind(opts, widgets, points)
  pages = {}
  ObjectSpace.each_object { |o| pages[Fiddle.dlwrap(o) & ~0x3fff] = true }
  sel = [widgets, points].map do |v|
    v.each_index.reject { |i| pages[Fiddle.dlwrap(v[i]) & ~0xffff] }
  end
  File.write("#{opts[:report]}.blind", sel.map { |ix| "#{ix.join(' ')}\n" }.join)
  n = [widgets, points].zip(sel).map { |v, ix| ix.map { |i| Fiddle.dlwrap(v[i]) >> 12 }.uniq.size }
  report(opts[:report], "blind #{Process.ppid} widgets #{n[0]} points #{n[1]}")
end

# The child: do the mode's writes, report, leave without teardown.
def child(opts, strings, widgets, points, others)
  before = private_dirty_kib
  case opts[:mode]
  when 'gc' then GC.start(full_mark: true, immediate_sweep: true)
  when 'append' then strings.each { |s| s << 'x' }
  else
    widgets.each(&:touch)
    points.each { |p| p.x = 2 }
    others.each(&:touch)
  end
  report(opts[:report], "done #{Process.pid} dirty_before #{before} dirty_after #{private_dirty_kib}")
  exit!(0)
end

GC.disable
# No temporary objects: garbage would be swept (written) by the child's GC.
strings = Array.new(opts[:strings]) { String.new(capacity: 64) << 'abcdefghijklmnopqrstuvwx' }
arrays = Array.new(opts[:arrays]) { |i| [i, i] }
widgets = Array.new(opts[:widgets]) { Cowtest::Widget.new }
points = Array.new(opts[:points]) { |i| Cowtest::Point.new(i, i) }
anon = Class.new(Cowtest::Widget)
anons = Array.new(opts[:anons]) { anon.new }
singles = Array.new(opts[:singles]) do
  w = Cowtest::Widget.new
  def w.single; end
  w
end
# GC.start collects even while the collector is disabled.
opts[:warmup].times { GC.start(full_mark: true, immediate_sweep: true) }
report(opts[:report], "main #{Process.pid} strings #{strings.size} arrays #{arrays.size} warmup #{opts[:warmup]}")
report(opts[:report], "heap #{Process.pid} pages " \
                      "#{GC.stat(:heap_allocated_pages) * GC::INTERNAL_CONSTANTS[:HEAP_PAGE_SIZE] / 4096} " \
                      "old #{GC.stat(:old_objects)} live #{GC.stat(:heap_live_slots)}")
# The pages are counted in a child of its own: the objects this allocates
# (a Fiddle::Pointer per string) would otherwise be garbage that the
# child's GC sweeps, on pages of their own, and the master's heap would grow.
Process.wait(fork { measure(opts, strings, arrays, widgets, points, anons, singles) })
if opts[:blind]
  sel = File.readlines("#{opts[:report]}.blind").map { |l| l.split.map(&:to_i) }
  widgets = widgets.values_at(*sel[0])
  points = points.values_at(*sel[1])
end
report(opts[:report], "ready #{Process.pid}")
sleep(0.01) until File.exist?(opts[:go])
others = anons + singles
pid = fork { child(opts, strings, widgets, points, others) }
report(opts[:report], "child #{pid} mode #{opts[:mode]}")
Process.wait(pid)
sleep(0.01) until File.exist?(opts[:stop])
exit(0)
