// ns-3.44 side of the AQM cross-check (validate/ns3/aqm_compare.py): one duplex
// point-to-point link whose forward device is fed by CoDelQueueDisc, PieQueueDisc or
// FqCoDelQueueDisc, long TCP flows with ns-3's own TCP defaults (rtolab's `ns3` stack), and
// what the comparison reads: bytes delivered per flow, the queue disc's drops and when each
// happened, and the sojourn time of every packet it dequeues. Every set-up choice is documented in
// aqm_compare.py.
#pragma once

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <string>
#include <vector>

namespace rtolab_aqm
{

using namespace ns3;

struct AqmOutcome
{
    std::vector<uint64_t> received;   // bytes delivered to each flow's sink
    uint64_t dropsBeforeEnqueue = 0;  // refused at the limit or by PIE's early drop
    uint64_t dropsAfterDequeue = 0;   // CoDel's drops (FQ-CoDel: per-flow CoDel and overflow)
    uint64_t dropsTotal = 0;
    std::vector<double> sojournT;     // dequeue time, s
    std::vector<double> sojournV;     // sojourn time, s
    std::vector<double> dropT;        // time of each drop, s
};

inline void
OnDrop(AqmOutcome* out, Ptr<const QueueDiscItem>)
{
    out->dropT.push_back(Simulator::Now().GetSeconds());
}

inline void
OnSojourn(AqmOutcome* out, Time sojourn)
{
    out->sojournT.push_back(Simulator::Now().GetSeconds());
    out->sojournV.push_back(sojourn.GetSeconds());
}

inline void
OnRx(uint64_t* received, Ptr<const Packet> p, const Address&)
{
    *received += p->GetSize();
}

/// Hands bytes to a TCP socket as fast as its send buffer takes them, forever.
class Bulk
{
  public:
    void Fill(Ptr<Socket> s, uint32_t)
    {
        while (s->GetTxAvailable() > 0)
        {
            uint32_t chunk = std::min<uint32_t>(s->GetTxAvailable(), 65536);
            if (s->Send(Create<Packet>(chunk)) < 0)
            {
                return;
            }
        }
    }
};

/// Runs `starts.size()` bulk flows of congestion control `cc` (a TypeId name) for `durationS` over a link of `rateBps` and one-way
/// `delayS` whose forward queue disc is `kind` ("codel", "pie", "fq_codel") with Linux's
/// defaults; the device queues hold one packet (the forward device's waits behind the one
/// being sent) and the reverse direction, ACKs only, has a 1000-packet DropTail device queue.
inline AqmOutcome
RunAqm(const std::string& kind, const std::string& cc, double rateBps, double delayS, const std::vector<double>& starts, double durationS)
{
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TypeId::LookupByName(cc)));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Ipv4AddressGenerator::Reset();
    NodeContainer nodes;
    nodes.Create(2);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(rateBps))));
    p2p.SetChannelAttribute("Delay", TimeValue(Seconds(delayS)));
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1p")));
    NetDeviceContainer devices = p2p.Install(nodes);
    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper addresses("10.1.1.0", "255.255.255.0");
    Ipv4InterfaceContainer ifaces = addresses.Assign(devices);
    TrafficControlHelper().Uninstall(devices);
    TrafficControlHelper tch;
    const std::string type = kind == "codel" ? "ns3::CoDelQueueDisc"
                             : kind == "pie" ? "ns3::PieQueueDisc"
                                             : "ns3::FqCoDelQueueDisc";
    tch.SetRootQueueDisc(type);
    Ptr<QueueDisc> qdisc = tch.Install(devices.Get(0)).Get(0);
    // Attributes are read when the queue disc initialises, at the start of the run.
    qdisc->SetAttribute("UseEcn", BooleanValue(false));
    if (kind == "codel")
    {
        qdisc->SetAttribute("MaxSize", QueueSizeValue(QueueSize("1000p")));
        qdisc->SetAttribute("Target", TimeValue(MilliSeconds(5)));
        qdisc->SetAttribute("Interval", TimeValue(MilliSeconds(100)));
        qdisc->SetAttribute("MinBytes", UintegerValue(1500));
    }
    else if (kind == "pie")
    {
        qdisc->SetAttribute("MaxSize", QueueSizeValue(QueueSize("1500000B")));
        qdisc->SetAttribute("MeanPktSize", UintegerValue(1500));
        qdisc->SetAttribute("QueueDelayReference", TimeValue(MilliSeconds(15)));
        qdisc->SetAttribute("Tupdate", TimeValue(MilliSeconds(15)));
        qdisc->SetAttribute("Supdate", TimeValue(MilliSeconds(500)));
        qdisc->SetAttribute("A", DoubleValue(0.125));
        qdisc->SetAttribute("B", DoubleValue(1.25));
        qdisc->SetAttribute("MaxBurstAllowance", TimeValue(MilliSeconds(150)));
        qdisc->SetAttribute("UseDequeueRateEstimator", BooleanValue(false));
        qdisc->SetAttribute("UseDerandomization", BooleanValue(true));
        qdisc->SetAttribute("UseCapDropAdjustment", BooleanValue(true));
    }
    else
    {
        qdisc->SetAttribute("MaxSize", QueueSizeValue(QueueSize("10240p")));
        qdisc->SetAttribute("Flows", UintegerValue(1024));
        qdisc->SetAttribute("DropBatchSize", UintegerValue(64));
        qdisc->SetAttribute("Target", StringValue("5ms")); // FqCoDel's are text attributes
        qdisc->SetAttribute("Interval", StringValue("100ms"));
        DynamicCast<FqCoDelQueueDisc>(qdisc)->SetQuantum(1514);
    }
    devices.Get(1)->GetObject<PointToPointNetDevice>()->GetQueue()->SetMaxSize(QueueSize("1000p"));

    AqmOutcome out;
    out.received.assign(starts.size(), 0);
    qdisc->TraceConnectWithoutContext("SojournTime", MakeBoundCallback(&OnSojourn, &out));
    qdisc->TraceConnectWithoutContext("Drop", MakeBoundCallback(&OnDrop, &out));
    std::vector<Bulk> senders(starts.size());
    for (size_t i = 0; i < starts.size(); ++i)
    {
        uint16_t port = 5000 + i;
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sink = sinkHelper.Install(nodes.Get(1));
        sink.Start(Seconds(0));
        sink.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnRx, &out.received[i]));
        Ptr<Socket> s = Socket::CreateSocket(nodes.Get(0), TcpSocketFactory::GetTypeId());
        s->SetSendCallback(MakeCallback(&Bulk::Fill, &senders[i]));
        Address peer = InetSocketAddress(ifaces.GetAddress(1), port);
        Simulator::Schedule(Seconds(starts[i]), [s, peer]() { s->Connect(peer); });
    }
    Simulator::Stop(Seconds(durationS));
    Simulator::Run();
    const QueueDisc::Stats& st = qdisc->GetStats();
    out.dropsBeforeEnqueue = st.nTotalDroppedPacketsBeforeEnqueue;
    out.dropsAfterDequeue = st.nTotalDroppedPacketsAfterDequeue;
    out.dropsTotal = st.nTotalDroppedPackets;
    Simulator::Destroy();
    return out;
}

} // namespace rtolab_aqm
