# cases.tcl -- single-flow scripted cases in ns-2.35, for the cross-check of rtolab.
#
# Run:   ns cases.tcl case=<name> [key=value ...]   (prints ONE line of JSON on stdout)
#   case = baseline | held_spike | lost_syn | three_drops | lost_rexmit
#   optional: pkts=N (data packets to transfer; default 1000 for held_spike, 200 otherwise)
#             drops="o1 o2 ..." (override the case's list of forward-link ordinals to lose)
#             rate_bps=1e6 delay_s=0.1 qlimit=200 mss=1000 window=20 iw=2
#             trace=<file> (keep the ns-2 packet + TCP event trace; default: a temp file,
#             deleted at the end)  max_s=600 (give up: completed=false)
#
# Set-up common to all cases: nodes n0 -> n1, one duplex-link of 1 Mbps, 100 ms one way,
# DropTail 200 packets each way, a Delayer in each direction between queue and link (idle
# unless the case blocks it; an idle Delayer adds no delay).  Agent/TCP/Sack1 with
# Agent/TCPSink/Sack1 (immediate ACKs), packetSize_ 1000 payload bytes (1040 B on the link:
# ns-2 adds tcpip_base_hdr_size_ 40; ACKs 40 B + 8 B per SACK block; the SYN 40 B),
# window_ 20, windowInit_ 2 (ns-2's default; windowInitOption_ 1), syn_ true (ns-2.35
# default: packet seqno 0 is a 40-byte SYN; data are seqnos 1..pkts; cwnd is 1 until the SYN
# is acked, then windowInit_), timestamps off, every other agent parameter at its ns-2.35
# default (tcpTick_ 0.01, minrto_ 0.2, maxrto_ 60, rtxcur_init_ 3 s, rfc2988_ true,
# numdupacks_ 3, singledup_ 1 = limited transmit, maxburst_ 0).  `$ftp produce pkts` at t = 0.
#
# Scripted losses use ErrorModel/List (unit pkt) on the forward link, inserted with
# `$ns link-lossmodel`, i.e. after the link (after serialisation and propagation).  It counts
# every packet the forward link carries (SYN, data, retransmissions) and its droplist is
# 0-based; this script takes 1-based ordinals ("packet number k the forward link transmits,
# counting from 1", the same as rtolab's `drop_packets`) and passes k-1.  ACKs never lost.
#
# Cases:
#   baseline     no loss, no spike (reference).
#   held_spike   both directions held (Delayers blocked) from t = 5 s to t = 8 s; 1000
#                packets so that the transfer is still running at 5 s.
#   lost_syn     ns-2.35's one-way TCP has a SYN (syn_ true): forward ordinal 1, the SYN
#                (seqno 0, 40 B), is lost.  It is resent after the initial RTO (3 s).
#   three_drops  forward ordinals 30, 32, 34 lost = seqnos 29, 31, 33 (ordinal 1 is the SYN
#                and nothing is retransmitted before them), all in one window.
#   lost_rexmit  forward ordinal 30 (seqno 29) lost, and its retransmission too.  The
#                retransmission's ordinal was found by running
#                `ns cases.tcl case=lost_rexmit drops=30 trace=t.tr`: the JSON's
#                rexmit_ordinals gives the ordinal at which seqno 29 was resent (the fast
#                retransmit at t = 1.252 s), which is 50; so drops = 30 50.  Check: with
#                drops="30 50" the JSON shows drop_seqnos [29, 29], drop_ordinals [30, 50];
#                the second copy is then resent by the RTO (ordinal 51, t = 1.612 s).
#
# Output (when the sender's `done` fires, i.e. the cumulative ACK of the last packet is back):
#   completion_s  time of that ACK's arrival at the sender (from t = 0, when the SYN is sent)
#   rx_complete_s time the receiver got the last missing data packet (it sends the final
#                 cumulative ACK at that instant), from the trace
#   timeouts      nrexmit_ (RTO expiries with data outstanding)
#   retransmits   nrexmitpack_ (packets resent, SYN included)
#   packets       ndatapack_ (all packets the sender emitted: SYN + data + retransmissions)
#   plus, from the trace: fwd_pkts (packets the forward link transmitted), drop_seqnos,
#   drop_ordinals, rexmit_seqnos, rexmit_ordinals (seqno / forward ordinal of every
#   retransmission, in order), timeout_times_s, fast_recoveries (Sack1 FAST_RECOVERY events).

source [file join [file dirname [info script]] lib.tcl]

parse_args {
    case "" pkts 0 drops "-" rate_bps 1000000 delay_s 0.1 qlimit 200 mss 1000 window 20
    iw 2 trace "" max_s 600 agent sack1
} $argv

array set case_drops {
    baseline    {}
    held_spike  {}
    lost_syn    {1}
    three_drops {30 32 34}
    lost_rexmit {30 50}
}
if {![info exists case_drops($xp(case))]} {
    puts stderr "case must be one of: [lsort [array names case_drops]]"
    exit 2
}
if {$xp(drops) eq "-"} { set xp(drops) $case_drops($xp(case)) }
if {$xp(pkts) <= 0} {
    set xp(pkts) [expr {$xp(case) eq "held_spike" ? 1000 : 200}]
}

set ns [new Simulator]
open_trace cases
$ns trace-all $tf
$ns eventtrace-all

build_link $xp(rate_bps) $xp(delay_s) $xp(qlimit)

# agent=sack1 (default): Agent/TCP/Sack1 + Agent/TCPSink/Sack1;
# agent=newreno: Agent/TCP/Newreno + Agent/TCPSink (no SACK).
if {$xp(agent) == "newreno"} {
    set tcp [new Agent/TCP/Newreno]
    set sink [new Agent/TCPSink]
} else {
    set tcp [new Agent/TCP/Sack1]
    set sink [new Agent/TCPSink/Sack1]
}
set ftp [attach_flow $ns $n0 $n1 $tcp $sink $xp(mss) $xp(window) $xp(iw)]
$ns at 0.0 "$ftp produce $xp(pkts)"

if {[llength $xp(drops)] > 0} {
    set zero_based {}
    foreach k [lsort -integer $xp(drops)] { lappend zero_based [expr {$k - 1}] }
    set lem [new ErrorModel/List]
    $lem unit pkt
    $lem droplist $zero_based
    $ns link-lossmodel $lem $n0 $n1
}

if {$xp(case) eq "held_spike"} {
    $ns at 5.0 hold_both
    $ns at 8.0 release_both
}

# Read the trace written so far and derive the per-packet facts for the JSON.
proc analyse_trace {} {
    global trace_path xp n0 n1
    set src [$n0 id]
    set dst [$n1 id]
    set last [expr {$xp(pkts)}]  ;# seqno of the last data packet (SYN is 0)
    set r [dict create fwd_pkts 0 drop_seqnos {} drop_ordinals {} rexmit_seqnos {} \
        rexmit_ordinals {} timeout_times_s {} fast_recoveries 0 rx_complete_s -1]
    set maxseq -1
    set ord 0
    set f [open $trace_path r]
    while {[gets $f line] >= 0} {
        set ev [lindex $line 0]
        if {$ev eq "E"} {
            set what [lindex $line 5]
            if {$what eq "TIMEOUT"} { dict lappend r timeout_times_s [lindex $line 1] }
            if {$what eq "FAST_RECOVERY"} { dict incr r fast_recoveries }
            continue
        }
        set t [lindex $line 1]
        set from [lindex $line 2]
        set to [lindex $line 3]
        set type [lindex $line 4]
        set seq [lindex $line 10]
        if {$from == $src && $to == $dst && $type eq "tcp"} {
            if {$ev eq "-"} {
                incr ord
                dict incr r fwd_pkts
                if {$seq <= $maxseq} {
                    dict lappend r rexmit_seqnos $seq
                    dict lappend r rexmit_ordinals $ord
                } else {
                    set maxseq $seq
                }
                set ord_of($seq) $ord
            } elseif {$ev eq "d"} {
                dict lappend r drop_seqnos $seq
                dict lappend r drop_ordinals $ord_of($seq)
            }
        } elseif {$from == $dst && $to == $src && $type eq "ack" && $ev eq "+"} {
            if {$seq >= $last && [dict get $r rx_complete_s] < 0} {
                dict set r rx_complete_s $t
            }
        }
    }
    close $f
    return $r
}

proc report {completed} {
    global ns tcp xp tf trace_path keep_trace
    set now [$ns now]
    $ns flush-trace
    close $tf
    set a [analyse_trace]
    if {!$keep_trace} { file delete $trace_path }
    set out [list \
        completion_s [format %.6f [expr {$completed ? $now : -1}]] \
        rx_complete_s [dict get $a rx_complete_s] \
        timeouts [$tcp set nrexmit_] \
        retransmits [$tcp set nrexmitpack_] \
        packets [$tcp set ndatapack_] \
        completed [expr {$completed ? "true" : "false"}] \
        fwd_pkts [dict get $a fwd_pkts] \
        drop_seqnos [list list [dict get $a drop_seqnos]] \
        drop_ordinals [list list [dict get $a drop_ordinals]] \
        rexmit_seqnos [list list [dict get $a rexmit_seqnos]] \
        rexmit_ordinals [list list [dict get $a rexmit_ordinals]] \
        timeout_times_s [list list [dict get $a timeout_times_s]] \
        fast_recoveries [dict get $a fast_recoveries] \
        case $xp(case) pkts $xp(pkts) drops [list list $xp(drops)] \
        mss $xp(mss) window $xp(window) iw $xp(iw) \
    ]
    puts [json_line $out]
    exit 0
}

# TcpAgent::finish() calls "$tcp done" when the last packet's cumulative ACK arrives.
$tcp proc done {} { report 1 }
$ns at $xp(max_s) "report 0"
$ns run
