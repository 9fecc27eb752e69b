# iw10.tcl -- one run of paper 002's dumbbell (IW10 and initial RTO 1 s vs 3 s) in ns-2.35,
# for the cross-check of rtolab's `iw10-irto` study (python/rtolab/studies/iw10_irto.py).
# validate/iw10_ns2.py drives it; nothing here imports rtolab.
#
# Run:   ns iw10.tcl key=value ...          (prints ONE line of JSON on stdout)
#   rate_bps=160000 delay_s=0.25           bottleneck rate and one-way delay
#   queue=droptail qlimit=7                bottleneck queue: droptail | red; qlimit in packets
#   q_weight=0.002 thresh=3 maxthresh=9 linterm=10     RED only (see below)
#   iw=10 irto=3 mss=1460 window=1000
#   starts1="0.012 0.087"  starts2="2.031 2.05"        per-flow start times (s) of the first
#                                          and the later burst; one Sack1 agent per entry
#   bytes1="90000 90000"   bytes2="90000 90000"        per-flow sizes in bytes (see Sizes)
#   seed=1 max_s=2000 delays=0 trace=<file>
#
# Topology (n0 -> n1 -> n2, every flow's sender at n0, its sink at n2):
#   sender side  duplex-link n0-n1, 1 Gbps, 11 ms one way, DropTail queue-limit 1000 each way.
#   bottleneck   duplex-link n1-n2, rate_bps, delay_s one way, the same queue each way (rtolab's
#                links are duplex and the reverse direction has the forward one's queue).
#
# Bottleneck queue:
#   queue=droptail  DropTail, `$ns queue-limit` qlimit.  ns-2.35's DropTail::enque drops an
#                   arrival when q_->length() + 1 >= qlim_, and Queue::recv has already taken
#                   the packet in transmission out of q_: at most qlimit - 1 packets wait and
#                   qlimit are in the link direction in all.  (rtolab's "Np" queue holds N
#                   waiting plus the one being sent; iw10_ns2.py can pass qlimit = N + 1 to
#                   reproduce that, its `--plus1` variant.)
#   queue=red       Queue/RED with iw10_irto.red_queue's settings, mapped one to one:
#                     limit "Np"         -> queue-limit qlimit = N (with queue_in_bytes_ the
#                                           hard limit is N * mean_pktsize_ bytes of waiting
#                                           packets, checked before the arrival is added)
#                     q_weight           -> q_weight_
#                     thresh, maxthresh  -> thresh_, maxthresh_ (packets; ns-2 multiplies them
#                                           by mean_pktsize_ because queue_in_bytes_ is true)
#                     linterm = 1/maxp   -> linterm_
#                     mean_pktsize 1500  -> mean_pktsize_ 1500
#                     bytes, queue_in_bytes -> bytes_ true, queue_in_bytes_ true
#                     gentle, wait false -> gentle_ false, wait_ false
#                   Everything else at ns-2.35's default: use_mark_p_ true, mark_p_ 0.1
#                   (only for ECN marking, not used), setbit_ false, drop_tail_ true,
#                   cautious_ 0 (so idle_pktsize_ is unused: the idle decay uses
#                   ptc = bandwidth / (8 mean_pktsize_)), adaptive_ 0, summarystats_ false.
#                   RED draws from ns-2's default RNG, seeded with `seed`.
#
# Flows: for every entry of starts1 / starts2 one Agent/TCP/Sack1 at n0 and one
#   Agent/TCPSink/Sack1 at n2 (immediate ACKs, 3 SACK blocks), fid_ = flow index (first burst
#   0..n-1, later burst n..2n-1).  packetSize_ mss (1460 payload, 1500 B on the link with
#   ns-2's 40 B tcpip_base_hdr_size_), window_ window (the study's WINDOW), windowInit_ iw
#   (windowInitOption_ 1), rtxcur_init_ irto, syn_ true (ns-2.35 default: seqno 0 is a 40 B SYN,
#   cwnd 1 until it is acked, then windowInit_; after a SYN timeout TcpAgent::timeout sets
#   wnd_init_ = 1 (bugfix_ss_) and slowdown gives ssthresh_ 2), timestamps_ false, every other
#   parameter at ns-2.35's default (tcpTick_ 0.01, minrto_ 0.2, maxrto_ 60, rfc2988_ true,
#   maxburst_ 0, numdupacks_ 3, singledup_ 1 = limited transmit, LimTransmitFix_ false,
#   partial_ack_ false, delay_growth_ true, srtt_init_ 0, rttvar_init_ 12, ssthresh_ =
#   window_ at reset).  At its start time the agent gets `advanceby` packets.
#
# Sizes: a one-way ns-2 agent sends whole packets only (TcpAgent::sendmsg rounds up), so a
#   flow of B bytes is ceil(B / mss) data packets of mss bytes.
#
# Output (JSON, one line): per flow (lists in flow order)
#   start_s     its start time (as given)
#   end_s       when the cumulative ACK of its last packet reached the sender (TcpAgent::finish
#               calls `done`), -1 if unfinished at max_s
#   timeouts    nrexmit_ (RTO expiries with data outstanding, the SYN's included) minus
#               syn_timeouts
#   syn_timeouts  transmissions of seqno 0 (the SYN) on the sender-side link minus one
#   retransmits nrexmitpack_ (SYN included), packets ndatapack_
#   drops       bottleneck drops of that flow's data packets (forward direction)
#   and, with delays=1, one_way_delays_s: every data packet's time from its enqueue at n0 to its
#   arrival at n2, in arrival order (rtolab's "delay" series: sent_at to arrival).

source [file join [file dirname [info script]] lib.tcl]

parse_args {
    rate_bps 160000 delay_s 0.25 queue droptail qlimit 7
    q_weight 0.002 thresh 3 maxthresh 9 linterm 10
    iw 10 irto 3 mss 1460 window 1000
    starts1 "0" starts2 "2" bytes1 "180000" bytes2 "180000"
    seed 1 max_s 2000 delays 0 trace ""
} $argv

if {[llength $xp(starts1)] != [llength $xp(bytes1)] || [llength $xp(starts2)] != [llength $xp(bytes2)]} {
    puts stderr "starts1/bytes1 and starts2/bytes2 must have the same lengths"
    exit 2
}

$defaultRNG seed $xp(seed)

if {$xp(queue) eq "red"} {
    Queue/RED set q_weight_ $xp(q_weight)
    Queue/RED set thresh_ $xp(thresh)
    Queue/RED set maxthresh_ $xp(maxthresh)
    Queue/RED set linterm_ $xp(linterm)
    Queue/RED set mean_pktsize_ 1500
    Queue/RED set bytes_ true
    Queue/RED set queue_in_bytes_ true
    Queue/RED set gentle_ false
    Queue/RED set wait_ false
    set qtype RED
} elseif {$xp(queue) eq "droptail"} {
    set qtype DropTail
} else {
    puts stderr "queue must be droptail or red"
    exit 2
}

set ns [new Simulator]
open_trace iw10

set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
$ns duplex-link $n0 $n1 1000000000 0.011s DropTail
$ns queue-limit $n0 $n1 1000
$ns queue-limit $n1 $n0 1000
$ns duplex-link $n1 $n2 $xp(rate_bps) ${xp(delay_s)}s $qtype
$ns queue-limit $n1 $n2 $xp(qlimit)
$ns queue-limit $n2 $n1 $xp(qlimit)
# Only the two forward queues are traced: SYN sends at n0 -> n1, drops and arrivals at n1 -> n2.
$ns trace-queue $n0 $n1 $tf
$ns trace-queue $n1 $n2 $tf
if {$xp(trace) ne ""} {
    $ns trace-queue $n2 $n1 $tf
    $ns trace-queue $n1 $n0 $tf
}

set starts [concat $xp(starts1) $xp(starts2)]
set sizes [concat $xp(bytes1) $xp(bytes2)]
set nflows [llength $starts]
set ndone 0
for {set i 0} {$i < $nflows} {incr i} {
    set tcp($i) [new Agent/TCP/Sack1]
    set sink($i) [new Agent/TCPSink/Sack1]
    $tcp($i) set packetSize_ $xp(mss)
    $tcp($i) set window_ $xp(window)
    $tcp($i) set windowInit_ $xp(iw)
    $tcp($i) set windowInitOption_ 1
    $tcp($i) set rtxcur_init_ $xp(irto)
    $tcp($i) set syn_ true
    $tcp($i) set timestamps_ false
    $tcp($i) set fid_ $i
    $ns attach-agent $n0 $tcp($i)
    $ns attach-agent $n2 $sink($i)
    $ns connect $tcp($i) $sink($i)
    set b [lindex $sizes $i]
    set pk($i) [expr {($b + $xp(mss) - 1) / $xp(mss)}]
    set end($i) -1
    $tcp($i) proc done {} "flow_done $i"
    $ns at [lindex $starts $i] "$tcp($i) advanceby $pk($i)"
}

proc flow_done {i} {
    global ns end ndone nflows
    if {$end($i) < 0} {
        set end($i) [$ns now]
        incr ndone
        if {$ndone == $nflows} { report }
    }
}

proc analyse_trace {} {
    global trace_path n0 n1 n2 nflows xp
    set a [$n0 id]; set b [$n1 id]; set c [$n2 id]
    for {set i 0} {$i < $nflows} {incr i} { set syn($i) 0; set drop($i) 0 }
    set delays {}
    set f [open $trace_path r]
    while {[gets $f line] >= 0} {
        set ev [lindex $line 0]
        set from [lindex $line 2]
        set to [lindex $line 3]
        if {[lindex $line 4] ne "tcp"} continue
        set fid [lindex $line 7]
        set seq [lindex $line 10]
        set uid [lindex $line 11]
        if {$from == $a && $to == $b && $ev eq "+"} {
            if {$seq == 0} { incr syn($fid) }
            if {$xp(delays)} { set sent($uid) [lindex $line 1] }
        } elseif {$from == $b && $to == $c} {
            if {$ev eq "d" && $seq > 0} { incr drop($fid) }
            if {$ev eq "r" && $xp(delays) && $seq > 0} {
                lappend delays [format %.6f [expr {[lindex $line 1] - $sent($uid)}]]
            }
        }
    }
    close $f
    return [list [array get syn] [array get drop] $delays]
}

proc report {} {
    global ns tcp nflows starts end xp tf trace_path keep_trace pk
    $ns flush-trace
    close $tf
    lassign [analyse_trace] synl dropl delays
    array set syn $synl
    array set drop $dropl
    if {!$keep_trace} { file delete $trace_path }
    set s {}; set e {}; set to {}; set st {}; set rx {}; set pkts {}; set dr {}; set np {}
    for {set i 0} {$i < $nflows} {incr i} {
        set synto [expr {$syn($i) > 0 ? $syn($i) - 1 : 0}]
        lappend s [lindex $starts $i]
        lappend e [format %.6f $end($i)]
        lappend to [expr {[$tcp($i) set nrexmit_] - $synto}]
        lappend st $synto
        lappend rx [$tcp($i) set nrexmitpack_]
        lappend pkts [$tcp($i) set ndatapack_]
        lappend dr $drop($i)
        lappend np $pk($i)
    }
    set out [list start_s [list list $s] end_s [list list $e] timeouts [list list $to] \
        syn_timeouts [list list $st] retransmits [list list $rx] packets [list list $pkts] \
        drops [list list $dr] data_packets [list list $np] now [format %.6f [$ns now]]]
    if {$xp(delays)} { lappend out one_way_delays_s [list list $delays] }
    puts [json_line $out]
    exit 0
}

$ns at $xp(max_s) "report"
$ns run
