// ns-3.44 side of the UDP cross-check (validate/ns3/udp_compare.py): one duplex
// point-to-point link, one UDP source on the sending node (UdpClient for constant bit rate,
// OnOffApplication for on/off), a PacketSink on the other, and what the comparison reads:
// datagrams sent, where each lost one was dropped, and the send and arrival time of every
// datagram that arrived. Every set-up choice is documented in udp_compare.py.
#pragma once

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <vector>

namespace rtolab_udp
{

using namespace ns3;

struct UdpCase
{
    double linkBps;      // PointToPointNetDevice DataRate
    double delayS;       // PointToPointChannel Delay (one way)
    uint32_t queueLimit; // packets waiting in the device's DropTailQueue
    double rateBps;      // payload bits per second while sending
    uint32_t payload;    // bytes of UDP payload per datagram (PacketSize)
    double onMeanS;      // mean of the exponential on periods; <= 0: constant bit rate
    double offMeanS;     // mean of the exponential off periods
    double durationS;
    uint32_t run;        // RngSeedManager run number (independent replications)
};

struct UdpOutcome
{
    uint64_t sent = 0;          // the application's "Tx" trace
    uint64_t queueDrops = 0;    // the device queue's "Drop" trace
    uint64_t tcDrops = 0;       // TrafficControlLayer "TcDrop": device queue stopped, no qdisc
    uint32_t wireBytesMin = 0;  // sizes handed to the channel (PhyTxBegin): PPP + IPv4 + UDP + payload
    uint32_t wireBytesMax = 0;
    std::vector<int64_t> sentNs;    // per arrival, in arrival order: the header's timestamp
    std::vector<int64_t> arrivedNs; // per arrival: when the sink received it
};

inline void
OnSent(UdpOutcome* out, Ptr<const Packet>)
{
    ++out->sent;
}

inline void
OnDrop(uint64_t* count, Ptr<const Packet>)
{
    ++*count;
}

inline void
OnWire(UdpOutcome* out, Ptr<const Packet> p)
{
    uint32_t n = p->GetSize();
    out->wireBytesMin = out->wireBytesMin == 0 ? n : std::min(out->wireBytesMin, n);
    out->wireBytesMax = std::max(out->wireBytesMax, n);
}

/// PacketSink "Rx": the send time is in the header the source wrote at the front of the
/// payload (UdpClient: SeqTsHeader; OnOffApplication with EnableSeqTsSizeHeader:
/// SeqTsSizeHeader); both take Simulator::Now() when the header is built, in Send.
template <class Header>
void
OnArrival(UdpOutcome* out, Ptr<const Packet> p, const Address&)
{
    Header h;
    p->PeekHeader(h);
    out->sentNs.push_back(h.GetTs().GetTimeStep());
    out->arrivedNs.push_back(Simulator::Now().GetTimeStep());
}

/// The sending application: UdpClient (the k-th datagram at start + k·Interval) for constant
/// bit rate, OnOffApplication with exponential on and off periods otherwise.
inline ApplicationContainer
InstallSource(const UdpCase& c, Ptr<Node> node, Address sink, UdpOutcome* out)
{
    ApplicationContainer app;
    if (c.onMeanS <= 0)
    {
        UdpClientHelper client(sink);
        client.SetAttribute("MaxPackets", UintegerValue(0)); // 0: no limit
        client.SetAttribute("Interval", TimeValue(Seconds(c.payload * 8.0 / c.rateBps)));
        client.SetAttribute("PacketSize", UintegerValue(c.payload));
        app = client.Install(node);
    }
    else
    {
        OnOffHelper onoff("ns3::UdpSocketFactory", sink);
        onoff.SetConstantRate(DataRate(uint64_t(c.rateBps)), c.payload);
        auto exp = [](double mean) {
            return "ns3::ExponentialRandomVariable[Mean=" + std::to_string(mean) + "]";
        };
        onoff.SetAttribute("OnTime", StringValue(exp(c.onMeanS)));
        onoff.SetAttribute("OffTime", StringValue(exp(c.offMeanS)));
        onoff.SetAttribute("EnableSeqTsSizeHeader", BooleanValue(true));
        app = onoff.Install(node);
        // Fixed stream numbers for the on and off periods (OnOffApplication::AssignStreams),
        // so that run i draws the same periods whatever ran before it in this process; left
        // to ns-3, each new random variable takes the next stream of a process-wide counter.
        DynamicCast<OnOffApplication>(app.Get(0))->AssignStreams(0);
    }
    app.Get(0)->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnSent, out));
    return app;
}

inline UdpOutcome
RunUdp(const UdpCase& c)
{
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(c.run);
    Ipv4AddressGenerator::Reset();
    NodeContainer nodes;
    nodes.Create(2);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(c.linkBps))));
    p2p.SetChannelAttribute("Delay", TimeValue(Seconds(c.delayS)));
    p2p.SetQueue("ns3::DropTailQueue<Packet>",
                 "MaxSize",
                 QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, c.queueLimit)));
    NetDeviceContainer devices = p2p.Install(nodes);
    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper addresses("10.1.1.0", "255.255.255.0");
    Ipv4InterfaceContainer ifaces = addresses.Assign(devices);
    TrafficControlHelper().Uninstall(devices); // the device's DropTail queue is the only queue

    UdpOutcome out;
    const uint16_t port = 5004;
    PacketSinkHelper sinkHelper("ns3::UdpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sink = sinkHelper.Install(nodes.Get(1));
    sink.Start(Seconds(0));
    if (c.onMeanS <= 0)
    {
        sink.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnArrival<SeqTsHeader>, &out));
    }
    else
    {
        sink.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnArrival<SeqTsSizeHeader>, &out));
    }
    ApplicationContainer source = InstallSource(c, nodes.Get(0), InetSocketAddress(ifaces.GetAddress(1), port), &out);
    source.Start(Seconds(0));

    Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(devices.Get(0));
    dev->GetQueue()->TraceConnectWithoutContext("Drop", MakeBoundCallback(&OnDrop, &out.queueDrops));
    dev->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&OnWire, &out));
    nodes.Get(0)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
        "TcDrop",
        MakeBoundCallback(&OnDrop, &out.tcDrops));

    Simulator::Stop(Seconds(c.durationS));
    Simulator::Run();
    Simulator::Destroy();
    return out;
}

} // namespace rtolab_udp
