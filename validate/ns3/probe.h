// ns-3.44 side of rtolab's cross-checks: one duplex point-to-point link, bulk TCP flows over
// it, and the counters rtolab's flow table reports. Loaded into the Python bindings with
// cppyy (validate/ns3/ns3_run.py); every set-up choice is documented there and in README.md.
#pragma once

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <set>
#include <string>
#include <vector>

namespace rtolab_ns3
{

using namespace ns3;

struct LinkSetup
{
    double rateBps;
    double delayS;
    std::string queueLimit;        // ns-3 QueueSize text: "50p" or "64000B"
    std::vector<uint32_t> dropNth; // 1-based, counting the SYNs, FINs and data segments sent
};

/// The TCP options every socket of a run shares (ns-3's receivers take theirs from the
/// global defaults, so they are set there).
struct TcpSetup
{
    uint32_t mss;
    uint32_t iw;
    bool sack;
    bool timestamps;
    double minRtoS;
};

struct FlowSetup
{
    uint64_t size;
    double startS;
    std::string cc; // an ns-3 TcpCongestionOps TypeId name
};

struct FlowOutcome
{
    double startS = 0;
    double endS = -1; // last byte delivered; -1 if never
    uint64_t received = 0;
    uint64_t retransmits = 0;
    uint64_t timeouts = 0;
    double rtoSumS = 0;
    uint64_t rtoSamples = 0;
    std::vector<double> cwndT;
    std::vector<double> cwndV;
    std::vector<double> ssthreshT;
    std::vector<double> ssthreshV;
};

/// Drops the n-th packets (1-based) a link direction carries, counting every packet: the
/// SYN, the pure ACK that completes the handshake, data, FIN (as the kernel sends them and as
/// rtolab's `linux` profile does).
class DropNth : public ErrorModel
{
  public:
    std::set<uint32_t> drop;
    uint32_t seen = 0;

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        return drop.count(++seen) > 0;
    }

    void DoReset() override
    {
        seen = 0;
    }
};

/// A congestion control that counts its RTO expiries: ns-3.44 calls CongestionStateSet(CA_LOSS)
/// once per retransmission timeout and nowhere else (TcpSocketBase::ReTxTimeout).
template <class Cc>
class Counted : public Cc
{
  public:
    uint64_t* losses = nullptr;

    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override
    {
        if (newState == TcpSocketState::CA_LOSS && losses != nullptr)
        {
            ++*losses;
        }
        Cc::CongestionStateSet(tcb, newState);
    }
};

template <class Cc>
Ptr<TcpCongestionOps>
MakeCounted(uint64_t* losses)
{
    Ptr<Counted<Cc>> cc = CreateObject<Counted<Cc>>();
    cc->losses = losses;
    return cc;
}

inline Ptr<TcpCongestionOps>
MakeCc(const std::string& name, uint64_t* losses)
{
    if (name == "ns3::TcpLinuxReno")
    {
        return MakeCounted<TcpLinuxReno>(losses);
    }
    if (name == "ns3::TcpNewReno")
    {
        return MakeCounted<TcpNewReno>(losses);
    }
    if (name == "ns3::TcpCubic")
    {
        return MakeCounted<TcpCubic>(losses);
    }
    if (name == "ns3::TcpBic")
    {
        return MakeCounted<TcpBic>(losses);
    }
    if (name == "ns3::TcpWestwoodPlus")
    {
        return MakeCounted<TcpWestwoodPlus>(losses);
    }
    NS_FATAL_ERROR("no congestion control " << name);
    return nullptr;
}

/// Hands `size` bytes to a TCP socket as fast as its send buffer takes them.
class Bulk
{
  public:
    Ptr<Socket> socket;
    uint64_t size = 0;
    uint64_t queued = 0;

    void Fill(Ptr<Socket> s, uint32_t)
    {
        while (queued < size && s->GetTxAvailable() > 0)
        {
            uint64_t chunk = std::min<uint64_t>({s->GetTxAvailable(), size - queued, 65536});
            if (s->Send(Create<Packet>(chunk)) < 0)
            {
                return;
            }
            queued += chunk;
        }
    }
};

struct Probe
{
    FlowOutcome* out;
    uint64_t size;
    Time rto;
};

inline void
OnCwnd(FlowOutcome* out, uint32_t, uint32_t now)
{
    out->cwndT.push_back(Simulator::Now().GetSeconds());
    out->cwndV.push_back(now);
}

inline void
OnSsthresh(FlowOutcome* out, uint32_t, uint32_t now)
{
    out->ssthreshT.push_back(Simulator::Now().GetSeconds());
    out->ssthreshV.push_back(now);
}

inline void
OnRetransmission(FlowOutcome* out,
                 Ptr<const Packet> p,
                 const TcpHeader&,
                 const Address&,
                 const Address&,
                 Ptr<const TcpSocketBase>)
{
    if (p->GetSize() > 0)
    {
        ++out->retransmits;
    }
}

inline void
OnRto(Probe* probe, Time, Time now)
{
    probe->rto = now;
}

/// SND.UNA advanced: EstimateRtt has already updated the RTO for this ACK.
inline void
OnAckAdvance(Probe* probe, SequenceNumber32, SequenceNumber32)
{
    probe->out->rtoSumS += probe->rto.GetSeconds();
    ++probe->out->rtoSamples;
}

inline void
OnDelivered(Probe* probe, uint64_t* done, uint64_t total, Ptr<const Packet> p, const Address&)
{
    FlowOutcome* out = probe->out;
    out->received += p->GetSize();
    if (out->endS < 0 && out->received >= probe->size)
    {
        out->endS = Simulator::Now().GetSeconds();
        if (++*done == total)
        {
            Simulator::Stop();
        }
    }
}

/// The kernel's TCP defaults where ns-3.44 has a counterpart.
inline void
Configure(const TcpSetup& t)
{
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(t.mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(t.iw));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(t.sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(t.timestamps));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(t.minRtoS)));
    // Linux: an ACK for every second full segment, else after the delayed-ACK timer, whose
    // floor TCP_DELACK_MIN is 40 ms (ns-3 has one fixed timeout; its default is 200 ms).
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(40)));
    // Linux's first SYN timeout, TCP_TIMEOUT_INIT = 1 s (ns-3's default is 3 s).
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(1)));
    // The buffers Linux autotunes up to (tcp_wmem / tcp_rmem maxima, 4 MB / 6 MB), so that
    // neither limits the window here (ns-3's defaults are 128 kB).
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4194304));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(6291456));
    // RFC 6937 PRR, Linux's rate halving during recovery (ns-3's default is classic recovery).
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpPrrRecovery::GetTypeId()));
}

/// Runs the flows over the link until every flow has delivered its bytes or `limitS` passes.
inline std::vector<FlowOutcome>
Run(const LinkSetup& link,
    const TcpSetup& tcpSetup,
    const std::vector<FlowSetup>& flows,
    double limitS)
{
    Configure(tcpSetup);
    Ipv4AddressGenerator::Reset();
    NodeContainer nodes;
    nodes.Create(2);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(link.rateBps))));
    p2p.SetChannelAttribute("Delay", TimeValue(Seconds(link.delayS)));
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize(link.queueLimit)));
    NetDeviceContainer devices = p2p.Install(nodes);
    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper addresses("10.1.1.0", "255.255.255.0");
    Ipv4InterfaceContainer ifaces = addresses.Assign(devices);
    TrafficControlHelper().Uninstall(devices); // the device's DropTail queue is the only queue

    Ptr<DropNth> errors = CreateObject<DropNth>();
    errors->drop.insert(link.dropNth.begin(), link.dropNth.end());
    devices.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(errors));

    std::vector<FlowOutcome> outs(flows.size());
    std::vector<Probe> probes(flows.size());
    std::vector<Bulk> senders(flows.size());
    uint64_t done = 0;
    for (size_t i = 0; i < flows.size(); ++i)
    {
        uint16_t port = 5000 + i;
        probes[i] = Probe{&outs[i], flows[i].size, Seconds(1)};
        outs[i].startS = flows[i].startS;

        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sink = sinkHelper.Install(nodes.Get(1));
        sink.Start(Seconds(0));
        sink.Get(0)->TraceConnectWithoutContext(
            "Rx",
            MakeBoundCallback(&OnDelivered, &probes[i], &done, uint64_t(flows.size())));

        Ptr<Socket> s = Socket::CreateSocket(nodes.Get(0), TcpSocketFactory::GetTypeId());
        Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(s);
        tcp->SetCongestionControlAlgorithm(MakeCc(flows[i].cc, &outs[i].timeouts));
        tcp->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, &outs[i]));
        tcp->TraceConnectWithoutContext("SlowStartThreshold",
                                        MakeBoundCallback(&OnSsthresh, &outs[i]));
        tcp->TraceConnectWithoutContext("Retransmission",
                                        MakeBoundCallback(&OnRetransmission, &outs[i]));
        tcp->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, &probes[i]));
        tcp->TraceConnectWithoutContext("HighestRxAck", MakeBoundCallback(&OnAckAdvance, &probes[i]));
        senders[i].socket = s;
        senders[i].size = flows[i].size;
        s->SetSendCallback(MakeCallback(&Bulk::Fill, &senders[i]));
        Address peer = InetSocketAddress(ifaces.GetAddress(1), port);
        Simulator::Schedule(Seconds(flows[i].startS), [s, peer]() { s->Connect(peer); });
    }
    Simulator::Stop(Seconds(limitS));
    Simulator::Run();
    Simulator::Destroy();
    return outs;
}

} // namespace rtolab_ns3
