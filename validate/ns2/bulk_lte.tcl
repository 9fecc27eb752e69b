# bulk_lte.tcl -- rtolab's `bulk-lte` benchmark scenario (python/rtolab/scenarios/bulk-lte.toml)
# in ns-2.35: the peer side of `rtolab bench --peers`, which times both as whole processes.
#
# Run:   ns bulk_lte.tcl [key=value ...]        (prints ONE line of JSON on stdout, then exits)
#   duration_s=1000 flows=4 rate_bps=50000000 delay_s=0.015 qlimit=125 mss=1448
#
# How each line of the scenario file maps to ns-2.35 (every other agent parameter is ns-2's
# default; nothing is traced, as `rtolab run` writes nothing without --out):
#
#  duration = "1000s"            `$ns at duration_s` prints the JSON and exits.
#  [[links]] rate = "50Mbps",    One duplex-link n0 <-> n1 of rate_bps and delay_s one way in
#   delay = "15ms"               each direction: rtolab's links are duplex, the reverse
#                                direction (the ACKs) has the forward one's settings unless a
#                                `reverse` table says otherwise, and the file has none.
#  queue = { kind = "droptail",  DropTail with queue-limit qlimit (125) in each direction.
#   limit = "125p" }             ns-2's limit counts the packets waiting, not the one being
#                                serialised; rtolab's reaches 125 too (max_queue of the links
#                                table), so the two differ by at most that one packet.
#  no loss, no spikes            No error model and no Delayer: lib.tcl's `build_link` inserts
#                                a Delayer each way, which this scenario does not need, so the
#                                link is built here without them.
#  four [[flows]] route = ["lte"] `flows` Agent/TCP/Sack1 senders at n0 and sinks at n1, each
#   (start 0, no size)           driven by an FTP source started at t = 0 (greedy, unbounded).
#  cc = "newreno", sack = true   Agent/TCP/Sack1: Reno window growth (windowOption_ 1) and
#                                SACK-based loss recovery, the nearest ns-2 agent to rtolab's
#                                Reno + RFC 6675 recovery; limited transmit (singledup_ 1,
#                                ns-2's default) and 3 duplicate ACKs (numdupacks_ 3) as rtolab.
#  mss = 1448                    packetSize_ 1448 payload bytes.  rtolab's data packet is
#                                1500 B on the wire: 40 B of IPv4 + TCP headers and the 10-byte
#                                timestamp option padded to 12.  ns-2 adds
#                                tcpip_base_hdr_size_ + ts_option_size_ (10) when timestamps_
#                                is on, so tcpip_base_hdr_size_ 42 gives the same 1500 B and
#                                the same serialisation time (240 us at 50 Mbps).
#  rtolab's defaults (no stack): timestamps on: timestamps_ true (an RTT sample per ACK, as
#                                RFC 7323).  IW per RFC 6928 = 10 segments of 1448 B:
#                                windowInit_ 10 (windowInitOption_ 1).  No receiver window
#                                cap: window_ 1000000 packets (far above the 250 packets that
#                                link and queue can hold).  Delayed ACKs every second segment
#                                with a 200 ms timer: Agent/TCPSink/Sack1/DelAck, interval_
#                                0.2 (it ACKs out-of-order data at once, as RFC 5681 4.2).
#                                rtolab puts up to 4 SACK blocks in an ACK; ns-2's TCP header
#                                holds at most 3 (asked for 4 it warns and keeps 3), so
#                                maxSackBlocks_ 3, which only matters with more than three
#                                holes in one window.  RFC 6298 timer:
#                                minrto_ 1, maxrto_ 60, rtxcur_init_ 1 (the initial RTO),
#                                tcpTick_ 0.001 (its clock granularity G is 1 ms).  A SYN
#                                before the data: syn_ true (ns-2.35's default).
#
# Differences that remain (they change no packet count by more than a fraction of a percent:
# the link is busy from the first second to the last, so both send what 50 Mbps carries):
# ns-2's Sack1 recovery is not RFC 6675 to the letter, its ACKs carry no timestamp bytes (40 B +
# 8 B per SACK block instead of rtolab's 52 B + SACK), and its SYN is 42 B instead of 60 B.
#
# Output (at t = duration_s), summed over the flows:
#   packets      ndatapack_: packets the senders emitted (SYN, data and retransmissions),
#                comparable with rtolab's data_packets
#   retransmits  nrexmitpack_
#   timeouts     nrexmit_ (RTO expiries with data outstanding)
#   acked_pkts   the senders' cumulative ACKs (data packets delivered in order)
#   plus the arguments.

source [file join [file dirname [info script]] lib.tcl]

parse_args {
    duration_s 1000 flows 4 rate_bps 50000000 delay_s 0.015 qlimit 125 mss 1448
} $argv

set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 $xp(rate_bps) $xp(delay_s)s DropTail
$ns queue-limit $n0 $n1 $xp(qlimit)
$ns queue-limit $n1 $n0 $xp(qlimit)

set senders {}
for {set i 0} {$i < $xp(flows)} {incr i} {
    set tcp [new Agent/TCP/Sack1]
    set sink [new Agent/TCPSink/Sack1/DelAck]
    $sink set interval_ 0.2
    $sink set maxSackBlocks_ 3
    $tcp set tcpip_base_hdr_size_ 42
    $tcp set minrto_ 1.0
    $tcp set maxrto_ 60
    $tcp set rtxcur_init_ 1.0
    $tcp set tcpTick_ 0.001
    # attach_flow turns timestamps off (the cross-check cases run without them): on again.
    set ftp [attach_flow $ns $n0 $n1 $tcp $sink $xp(mss) 1000000 10]
    $tcp set timestamps_ true
    $ns at 0.0 "$ftp start"
    lappend senders $tcp
}

proc report {} {
    global senders xp
    set sums [dict create packets 0 retransmits 0 timeouts 0 acked_pkts 0]
    foreach tcp $senders {
        dict incr sums packets [$tcp set ndatapack_]
        dict incr sums retransmits [$tcp set nrexmitpack_]
        dict incr sums timeouts [$tcp set nrexmit_]
        dict incr sums acked_pkts [$tcp set ack_]
    }
    puts [json_line [concat $sums [list \
        duration_s $xp(duration_s) flows $xp(flows) rate_bps $xp(rate_bps) \
        delay_s $xp(delay_s) qlimit $xp(qlimit) mss $xp(mss)]]]
    exit 0
}

$ns at $xp(duration_s) report
$ns run
