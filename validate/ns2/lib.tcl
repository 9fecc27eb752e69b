# Shared helpers for the ns-2.35 cross-check scripts (spikes.tcl, cases.tcl).
# Sourced, never run on its own.  Plain ns-2.35 as shipped by Debian's `ns2` package.
#
# Topology built by `build_link`: two nodes n0 -> n1, one duplex-link of the given rate and
# one-way delay with a DropTail queue of `qlimit` packets in each direction, and an ns-2
# `Delayer` inserted in each direction between the queue and the link
# (`$ns insert-delayer`, which makes the Delayer the queue's target; with trace-all it sits
# before the dequeue trace, so "-" lines mark the start of serialisation).
# While a Delayer is blocked (`$d block`) it takes no packet from the queue (it holds at most
# the one packet it already has); the packet being serialised and the packets already
# propagating are delivered as usual.  `$d unblock` resumes at once, back to back.

# Parse key=value arguments into the global array xp (not `opt`: ns-2 has its own).  `defaults` is a flat list
# {key value key value ...}; an unknown key or a malformed argument is an error.
proc parse_args {defaults arglist} {
    global xp
    array set xp $defaults
    foreach a $arglist {
        set i [string first = $a]
        if {$i < 1} {
            puts stderr "bad argument '$a': expected key=value; keys: [lsort [array names xp]]"
            exit 2
        }
        set k [string range $a 0 [expr {$i - 1}]]
        set v [string range $a [expr {$i + 1}] end]
        if {![info exists xp($k)]} {
            puts stderr "unknown key '$k'; keys: [lsort [array names xp]]"
            exit 2
        }
        set xp($k) $v
    }
}

# A fresh MRG32k3a stream (each `new RNG` is the next stream, 2^127 apart), advanced by
# `seed` substreams (2^76 apart): independent draws per replication, as the ns-2 manual
# recommends.
proc rng_stream {seed} {
    set r [new RNG]
    for {set i 0} {$i < $seed} {incr i} {
        $r next-substream
    }
    return $r
}

proc uniform_rv {lo hi rng} {
    set u [new RandomVariable/Uniform]
    $u set min_ $lo
    $u set max_ $hi
    $u use-rng $rng
    return $u
}

# Two nodes, one duplex link, a Delayer in each direction.  Sets globals n0 n1 d_fwd d_rev.
proc build_link {rate_bps delay_s qlimit} {
    global ns n0 n1 d_fwd d_rev
    set n0 [$ns node]
    set n1 [$ns node]
    $ns duplex-link $n0 $n1 $rate_bps ${delay_s}s DropTail
    $ns queue-limit $n0 $n1 $qlimit
    $ns queue-limit $n1 $n0 $qlimit
    set d_fwd [new Delayer]
    set d_rev [new Delayer]
    $ns insert-delayer $n0 $n1 $d_fwd
    $ns insert-delayer $n1 $n0 $d_rev
}

# Hold / release both directions (a delay spike).
proc hold_both {} {
    global d_fwd d_rev
    $d_fwd block
    $d_rev block
}
proc release_both {} {
    global d_fwd d_rev
    $d_fwd unblock
    $d_rev unblock
}

# One line of JSON from a flat list {key value ...}.  Values that are numbers are written
# bare, true/false bare, lists of numbers as arrays ("[...]" given as {list ...}), anything
# else as a string.
proc json_line {pairs} {
    set parts {}
    foreach {k v} $pairs {
        if {[llength $v] == 2 && [lindex $v 0] eq "list"} {
            set vals [lindex $v 1]
            set s "\[[join $vals {, }]\]"
        } elseif {[string is double -strict $v] || $v eq "true" || $v eq "false"} {
            set s $v
        } else {
            set s "\"[string map {\\ \\\\ \" \\\"} $v]\""
        }
        lappend parts "\"$k\": $s"
    }
    return "{[join $parts {, }]}"
}

# The flow both scripts run: `tcp` (sending at n0) to `sink` (at n1), packetSize_ `mss`,
# window_ `window`, windowInit_ `iw` (windowInitOption_ 1), no timestamps, driven by an FTP
# source; returns the FTP application.
proc attach_flow {ns n0 n1 tcp sink mss window iw} {
    $tcp set packetSize_ $mss
    $tcp set window_ $window
    $tcp set windowInit_ $iw
    $tcp set windowInitOption_ 1
    $tcp set timestamps_ false
    $ns attach-agent $n0 $tcp
    $ns attach-agent $n1 $sink
    $ns connect $tcp $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    return $ftp
}

# Opens the packet trace a script reads back: the path given as `trace=` (kept), or a
# temporary file named after `name` and the process (deleted by the script when done).
# Sets globals trace_path keep_trace tf.
proc open_trace {name} {
    global xp trace_path keep_trace tf
    if {$xp(trace) ne ""} {
        set trace_path $xp(trace)
        set keep_trace 1
    } else {
        set trace_path "/tmp/ns2-$name-[pid].tr"
        set keep_trace 0
    }
    set tf [open $trace_path w]
}
