# spikes.tcl -- paper 003's set-up (delay spikes + random loss, one greedy TCP flow) in
# ns-2.35, for the cross-check of rtolab's `reproduce spikes`.
#
# Run:   ns spikes.tcl [key=value ...]        (prints ONE line of JSON on stdout, then exits)
#   rate_bps=40000  loss=0.02  spike_lo_s=5  spike_hi_s=10  mean_period_s=30  seed=1
#   duration_s=2000  agent=sack1|newreno  window=0 (0: ceil(Cmax*R), i.e. 3 at 40 kbps,
#   6 at 100 kbps)  delay_s=0.1  qlimit=1000  mss=536  trace=<file> (optional: ns-2 packet
#   trace + TCP event trace of the run, for debugging; slow for long runs)
#
# What it builds, exactly:
#  * Nodes n0 -> n1, one duplex-link of rate_bps, delay_s (100 ms) one way, DropTail with
#    qlimit (1000) packets each way: the queue never drops.
#  * A `Delayer` (ns-2.35 C++ class, tcl: `insert-delayer`) between queue and link in each
#    direction.  Its own `spike` timer is NOT used, because two Delayers with their own
#    timers would spike independently; instead one Tcl process blocks / unblocks both
#    Delayers at the same instants (`$d block` / `$d unblock`), with the Delayer's own
#    renewal rule: first a spike-free interval from t = 0, then a spike, then a spike-free
#    interval measured from the END of that spike, and so on:
#       spike-free interval I ~ U[10, 2*mean_period_s - 10] s  (E = 10 -> the constant 10 s)
#       spike length       SD ~ U[spike_lo_s, spike_hi_s] s
#    During a spike no packet starts serialisation in either direction (packets are held in
#    the queue, never dropped); the packet being serialised when the spike starts and packets
#    already propagating are delivered on time.  At the end, held packets leave back to back.
#  * Sender Agent/TCP/Sack1 with Agent/TCPSink/Sack1 (agent=sack1) or Agent/TCP/Newreno with
#    Agent/TCPSink (agent=newreno): one-way ns-2 TCP, immediate ACKs (no DelAck sink),
#    packetSize_ = mss (536) payload bytes; ns-2 adds tcpip_base_hdr_size_ = 40 bytes
#    (useHeaders_ true, timestamps_ false), so data packets are 576 B on the link; ACKs are
#    40 B + 8 B per SACK block carried (TCPSink/Sack1, at most 3 blocks); the SYN is 40 B.
#    window_ = window, windowInit_ = 1 (windowInitOption_ 1), syn_ true and delay_growth_
#    true (ns-2.35 defaults: the first packet, seqno 0, is a 40-byte SYN; cwnd stays 1 until
#    it is acked, then windowInit_).  All other agent parameters are ns-2.35 defaults:
#    tcpTick_ 0.01, minrto_ 0.2, maxrto_ 60, rtxcur_init_ 3, rfc2988_ true, numdupacks_ 3,
#    singledup_ 1 (limited transmit), maxburst_ 0, bugFix_ true, no ECN, no F-RTO.
#  * FTP greedy source (`$ftp start` at t = 0).
#  * Random loss: an ErrorModel (unit pkt, rate_ = loss, ranvar RandomVariable/Uniform on its
#    own RNG stream) on the forward link only, inserted with `$ns link-lossmodel`, i.e. AFTER
#    the link (after serialisation and propagation, just before the receiving node): every
#    packet the forward link carries (data, retransmissions and the SYN) is lost
#    independently with probability `loss`; ACKs are never lost.  Dropped packets go to a
#    LossMonitor (so with trace=... random drops have no "d" line).
#  * RNG: three fresh MRG32k3a streams (loss, spike interval, spike length), each advanced
#    `seed` substreams; ns-2's defaultRNG (TCP's boot-time tick offset) advanced likewise.
#
# Output (at t = duration_s):
#   goodput_bps  = acked data packets * mss * 8 / duration_s (payload bits; acked data packets
#                  = the sender's cumulative ack_, since seqno 0 is the SYN and data are 1..ack_)
#   timeouts     = nrexmit_: RTO expiries with data outstanding (TcpAgent::timeout increments
#                  it on every such expiry; expiries with nothing outstanding are not counted)
#   retransmits  = nrexmitpack_: packets sent with seqno <= the highest sent before
#                  (fast/partial-ack/timeout retransmissions, including a retransmitted SYN)
#   packets      = ndatapack_: all packets the sender emitted (SYN + data + retransmissions)
#   plus: acked_pkts, loss_drops, spikes (spikes started before duration_s), spike_time_s
#   (held time within [0, duration_s]), window, and the arguments.

source [file join [file dirname [info script]] lib.tcl]

parse_args {
    rate_bps 40000 loss 0.0 spike_lo_s 5 spike_hi_s 10 mean_period_s 30 seed 1
    duration_s 2000 agent sack1 window 0 delay_s 0.1 qlimit 1000 mss 536 trace ""
} $argv

set E $xp(mean_period_s)
if {$E < 10} {
    puts stderr "mean_period_s must be >= 10 (spike-free interval U\[10, 2E-10\])"
    exit 2
}
if {$xp(spike_lo_s) > $xp(spike_hi_s) || $xp(spike_lo_s) < 0} {
    puts stderr "need 0 <= spike_lo_s <= spike_hi_s"
    exit 2
}
set wire [expr {$xp(mss) + 40}]
if {$xp(window) <= 0} {
    # ceil(Cmax * R): Cmax in packets/s, R = 2*delay + one packet time
    set cmax [expr {$xp(rate_bps) / (8.0 * $wire)}]
    set R [expr {2.0 * $xp(delay_s) + 8.0 * $wire / $xp(rate_bps)}]
    set xp(window) [expr {int(ceil($cmax * $R))}]
}

set ns [new Simulator]
for {set i 0} {$i < $xp(seed)} {incr i} { $defaultRNG next-substream }
if {$xp(trace) ne ""} {
    set tf [open $xp(trace) w]
    $ns trace-all $tf
    $ns eventtrace-all
}

build_link $xp(rate_bps) $xp(delay_s) $xp(qlimit)

switch -- $xp(agent) {
    sack1   { set tcp [new Agent/TCP/Sack1];   set sink [new Agent/TCPSink/Sack1] }
    newreno { set tcp [new Agent/TCP/Newreno]; set sink [new Agent/TCPSink] }
    default { puts stderr "agent must be sack1 or newreno"; exit 2 }
}
set ftp [attach_flow $ns $n0 $n1 $tcp $sink $xp(mss) $xp(window) 1]
$ns at 0.0 "$ftp start"

# Random loss on the forward link, after the link.
set lossmon [new Agent/LossMonitor]
if {$xp(loss) > 0} {
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $xp(loss)
    $em ranvar [uniform_rv 0.0 1.0 [rng_stream $xp(seed)]]
    $ns link-lossmodel $em $n0 $n1
    $em drop-target $lossmon
} else {
    rng_stream $xp(seed) ;# keep the stream numbering of the other RNGs the same
}

# Delay spikes on both directions at once.
set rv_int [uniform_rv 10.0 [expr {2.0 * $E - 10.0}] [rng_stream $xp(seed)]]
set rv_len [uniform_rv $xp(spike_lo_s) $xp(spike_hi_s) [rng_stream $xp(seed)]]
set nspikes 0
set spike_time 0.0
proc spike_start {} {
    global ns rv_len nspikes spike_time xp
    hold_both
    set now [$ns now]
    set len [$rv_len value]
    incr nspikes
    set end [expr {$now + $len}]
    if {$end > $xp(duration_s)} { set end $xp(duration_s) }
    set spike_time [expr {$spike_time + $end - $now}]
    $ns after $len spike_end
}
proc spike_end {} {
    global ns rv_int
    release_both
    $ns after [$rv_int value] spike_start
}
$ns at [$rv_int value] spike_start

proc finish {} {
    global ns tcp xp lossmon nspikes spike_time
    set acked [$tcp set ack_]
    if {![$tcp set syn_]} { incr acked } ;# without a SYN, seqnos start at 0
    if {$acked < 0} { set acked 0 }
    set goodput [expr {$acked * $xp(mss) * 8.0 / $xp(duration_s)}]
    puts [json_line [list \
        goodput_bps [format %.4f $goodput] \
        timeouts [$tcp set nrexmit_] \
        retransmits [$tcp set nrexmitpack_] \
        packets [$tcp set ndatapack_] \
        acked_pkts $acked \
        loss_drops [$lossmon set npkts_] \
        spikes $nspikes \
        spike_time_s [format %.6f $spike_time] \
        window $xp(window) \
        agent $xp(agent) rate_bps $xp(rate_bps) loss $xp(loss) \
        spike_lo_s $xp(spike_lo_s) spike_hi_s $xp(spike_hi_s) \
        mean_period_s $xp(mean_period_s) seed $xp(seed) duration_s $xp(duration_s) \
    ]]
    if {$xp(trace) ne ""} {
        $ns flush-trace
    }
    exit 0
}
$ns at $xp(duration_s) finish
$ns run
