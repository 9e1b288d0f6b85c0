# Reads a guest's kernel log (dmesg, with or without [time] prefixes) and prints one
# line per crash: pinpadd, pinpadctl or the evdev probe killed by a signal that dumps
# core (the rig boots the kernel with print_fatal_signals=1, so every such death is
# logged, a segfault or a trap with its own line too), a soft lockup, an oops, a general
# protection fault, or a kernel BUG. tests/system/run.sh (crash_lines) calls it.
#   awk -v expected="pinpadd:6 ..." -v known=FILE -f crashes.awk LOG
# expected: COMM:SIGNAL pairs a case causes on purpose (`# rig-expected-fatal-signal:`).
# known: where the lines of a known bug of the guest's kernel go instead (said, not
# failed): Debian 12's hid-cp2112 (the rig's simulated GPIO chip) sleeps in its
# irq_shutdown, which free_irq calls under a spinlock, whenever its poll work is running
# as a process releases an edge-watching line: "BUG: scheduling while atomic" in that
# process, whose preempt count the scheduler then leaves off by one (a later BUG of the
# same process follows from it). Whatever that process does next is still checked.
function ours(comm) { return comm ~ /^(pinpadd|pinpadctl|evdev-probe)$/ }
function report(line) { if (!(line in said)) { said[line] = 1; print line } }
function finish_bug() {
  if (bug == "") return
  if (trace ~ /irq_shutdown/ && trace ~ /hid_cp2112/) cp2112[bug_pid] = 1
  if (bug_pid in cp2112) print "known kernel bug (hid-cp2112 irq_shutdown sleeps under a spinlock): " bug > known
  else report(bug)
  bug = ""
}
BEGIN { n = split(expected, pairs, " "); for (i = 1; i <= n; i++) allowed[pairs[i]] = 1 }
{ sub(/^\[ *[0-9.]+\] /, ""); sub(/\r$/, "") }
bug != "" {
  trace = trace "\n" $0
  if ($0 ~ /<\/TASK>/ || ++bug_lines > 60) finish_bug()
  next
}
fatal != "" && /PID: [0-9]+ .*Comm: / {
  match($0, /PID: [0-9]+/); pid = substr($0, RSTART + 5, RLENGTH - 5)
  comm = $0; sub(/.*Comm: /, "", comm); sub(/ .*/, "", comm)
  if (ours(comm) && !((comm ":" fatal) in allowed))
    report(comm "[" pid "]: killed by fatal signal " fatal)
  fatal = ""
  next
}
/potentially unexpected fatal signal [0-9]+/ {
  fatal = $0; sub(/.*fatal signal /, "", fatal); sub(/\..*/, "", fatal)
  next
}
/^BUG: scheduling while atomic: / {
  bug = $0; trace = ""; bug_lines = 0
  bug_pid = $0; sub(/^BUG: scheduling while atomic: [^\/]*\//, "", bug_pid); sub(/\/.*/, "", bug_pid)
  next
}
/^[a-z0-9_-]+\[[0-9]+\]: segfault at / || /^traps: [a-z0-9_-]+\[[0-9]+\]/ {
  comm = $0; sub(/^traps: /, "", comm); sub(/\[.*/, "", comm)
  if (ours(comm)) report($0)
  next
}
/soft lockup|^BUG: |^Oops: |general protection fault/ { report($0) }
END { finish_bug() }
