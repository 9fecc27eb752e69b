//! The E-model of ITU-T G.107 (06/2015): the transmission rating R of a narrowband call and
//! the MOS it predicts (Annex B).
//!
//! R = Ro − Is − Id − Ie,eff + A (clause 7.1). Each term is a method of `Params` named after
//! the recommendation's symbol, and each states the equation it implements. Units follow
//! G.107: loudness ratings and levels in dB, noise in dBm0p or dB(A), delays in ms, Ppl in
//! percent. With every parameter at its default (clause 7.7), R ≈ 93.2.

use super::codec::Codec;

/// The inputs of the E-model, with the defaults of G.107 clause 7.7 (Table 2).
///
/// `st` and `mt` are the delay-sensitivity parameters G.107 added in its 2014 revision for the
/// absolute-delay term Idd (clause 7.4). At their defaults (sT = 1, mT = 100 ms, the values
/// for ordinary telephony) Idd is the classic expression of the earlier editions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// Send loudness rating SLR, dB (default 8).
    pub slr: f64,
    /// Receive loudness rating RLR, dB (default 2).
    pub rlr: f64,
    /// Sidetone masking rating STMR, dB (default 15).
    pub stmr: f64,
    /// Listener sidetone rating LSTR, dB (default 18).
    pub lstr: f64,
    /// D-value of the telephone, send side Ds (default 3).
    pub ds: f64,
    /// D-value of the telephone, receive side Dr (default 3).
    pub dr: f64,
    /// Talker echo loudness rating TELR, dB (default 65).
    pub telr: f64,
    /// Weighted echo path loss WEPL, dB (default 110).
    pub wepl: f64,
    /// Mean one-way delay of the echo path T, ms (default 0).
    pub t: f64,
    /// Round-trip delay in a 4-wire loop Tr, ms (default 0).
    pub tr: f64,
    /// Absolute (mouth-to-ear) delay in echo-free connections Ta, ms (default 0).
    pub ta: f64,
    /// Number of quantizing distortion units qdu (default 1).
    pub qdu: f64,
    /// Equipment impairment factor Ie (default 0).
    pub ie: f64,
    /// Packet-loss robustness factor Bpl (default 1; it does not matter while Ppl = 0).
    pub bpl: f64,
    /// Random packet-loss probability Ppl, percent (default 0).
    pub ppl: f64,
    /// Burst ratio BurstR: 1 for random (independent) loss, > 1 for bursty loss (default 1).
    pub burst_r: f64,
    /// Circuit noise referred to the 0 dBr point Nc, dBm0p (default −70).
    pub nc: f64,
    /// Noise floor at the receive side Nfor, dBmp (default −64).
    pub nfor: f64,
    /// Room noise at the send side Ps, dB(A) (default 35).
    pub ps: f64,
    /// Room noise at the receive side Pr, dB(A) (default 35).
    pub pr: f64,
    /// Advantage factor A (default 0).
    pub a: f64,
    /// Delay sensitivity sT of Idd (default 1).
    pub st: f64,
    /// Minimum perceivable delay mT of Idd, ms (default 100).
    pub mt: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            slr: 8.0,
            rlr: 2.0,
            stmr: 15.0,
            lstr: 18.0,
            ds: 3.0,
            dr: 3.0,
            telr: 65.0,
            wepl: 110.0,
            t: 0.0,
            tr: 0.0,
            ta: 0.0,
            qdu: 1.0,
            ie: 0.0,
            bpl: 1.0,
            ppl: 0.0,
            burst_r: 1.0,
            nc: -70.0,
            nfor: -64.0,
            ps: 35.0,
            pr: 35.0,
            a: 0.0,
            st: 1.0,
            mt: 100.0,
        }
    }
}

/// A call's score: the transmission rating R and the MOS (conversational, estimated) it maps to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Score {
    /// Transmission rating R (clause 7.1); 93.2 at the defaults, lower is worse.
    pub r: f64,
    /// MOS from R by Annex B: within [1, 4.5].
    pub mos: f64,
}

/// `10^(x/10)`: a level in dB as a power ratio.
fn power(db: f64) -> f64 {
    10f64.powf(db / 10.0)
}

impl Params {
    /// Clause 7.1: R = Ro − Is − Id − Ie,eff + A.
    pub fn r(&self) -> f64 {
        self.ro() - self.is() - self.id() - self.ie_eff() + self.a
    }

    /// Clause 7.2: the basic signal-to-noise ratio, Ro = 15 − 1.5·(SLR + No).
    pub fn ro(&self) -> f64 {
        15.0 - 1.5 * (self.slr + self.no())
    }

    /// Overall loudness rating, OLR = SLR + RLR (clause 7.2).
    pub fn olr(&self) -> f64 {
        self.slr + self.rlr
    }

    /// Clause 7.2: total noise at the 0 dBr point, the power sum of circuit noise and the
    /// three noise sources below, No = 10·log10(10^(Nc/10) + 10^(Nos/10) + 10^(Nor/10) +
    /// 10^(Nfo/10)), dBm0p.
    pub fn no(&self) -> f64 {
        10.0 * (power(self.nc) + power(self.nos()) + power(self.nor()) + power(self.nfo())).log10()
    }

    /// Clause 7.2: room noise at the send side referred to the 0 dBr point,
    /// Nos = Ps − SLR − Ds − 100 + 0.004·(Ps − OLR − Ds − 14)².
    pub fn nos(&self) -> f64 {
        self.ps - self.slr - self.ds - 100.0 + 0.004 * (self.ps - self.olr() - self.ds - 14.0).powi(2)
    }

    /// Clause 7.2: room noise at the receive side, Nor = RLR − 121 + Pre + 0.008·(Pre − 35)²,
    /// with the effective room noise raised by the listener sidetone,
    /// Pre = Pr + 10·log10(1 + 10^((10 − LSTR)/10)).
    pub fn nor(&self) -> f64 {
        let pre = self.pr + 10.0 * (1.0 + power(10.0 - self.lstr)).log10();
        self.rlr - 121.0 + pre + 0.008 * (pre - 35.0).powi(2)
    }

    /// Clause 7.2: the receive-side noise floor at the 0 dBr point, Nfo = Nfor + RLR.
    pub fn nfo(&self) -> f64 {
        self.nfor + self.rlr
    }

    /// Clause 7.3: the simultaneous impairment factor, Is = Iolr + Ist + Iq.
    pub fn is(&self) -> f64 {
        self.iolr() + self.ist() + self.iq()
    }

    /// Clause 7.3: impairment by too low an overall loudness,
    /// Iolr = 20·((1 + (Xolr/8)⁸)^(1/8) − Xolr/8) with Xolr = OLR + 0.2·(64 + No − RLR).
    pub fn iolr(&self) -> f64 {
        let x = (self.olr() + 0.2 * (64.0 + self.no() - self.rlr)) / 8.0;
        20.0 * ((1.0 + x.powi(8)).powf(1.0 / 8.0) - x)
    }

    /// Clause 7.3: sidetone masking rating with the talker echo heard as sidetone,
    /// STMRo = −10·log10(10^(−STMR/10) + e^(−T/4)·10^(−TELR/10)).
    pub fn stmro(&self) -> f64 {
        -10.0 * (power(-self.stmr) + (-self.t / 4.0).exp() * power(-self.telr)).log10()
    }

    /// Clause 7.3: impairment by a non-optimum sidetone,
    /// Ist = 12·(1 + ((STMRo − 13)/6)⁸)^(1/8) − 28·(1 + ((STMRo + 1)/19.4)³⁵)^(1/35)
    ///       − 13·(1 + ((STMRo − 3)/33)¹³)^(1/13) + 29.
    pub fn ist(&self) -> f64 {
        let s = self.stmro();
        12.0 * (1.0 + ((s - 13.0) / 6.0).powi(8)).powf(1.0 / 8.0)
            - 28.0 * (1.0 + ((s + 1.0) / 19.4).powi(35)).powf(1.0 / 35.0)
            - 13.0 * (1.0 + ((s - 3.0) / 33.0).powi(13)).powf(1.0 / 13.0)
            + 29.0
    }

    /// Clause 7.3: impairment by quantizing distortion, Iq = 15·log10(1 + 10^Y + 10^Z) with
    /// Y = (Ro − 100)/15 + 46/8.4 − G/9, Z = 46/30 − G/40, G = 1.07 + 0.258·Q + 0.0602·Q²,
    /// Q = 37 − 15·log10(qdu).
    pub fn iq(&self) -> f64 {
        let q = 37.0 - 15.0 * self.qdu.log10();
        let g = 1.07 + 0.258 * q + 0.0602 * q * q;
        let y = (self.ro() - 100.0) / 15.0 + 46.0 / 8.4 - g / 9.0;
        let z = 46.0 / 30.0 - g / 40.0;
        15.0 * (1.0 + 10f64.powf(y) + 10f64.powf(z)).log10()
    }

    /// Clause 7.4: the delay impairment factor, Id = Idte + Idle + Idd.
    pub fn id(&self) -> f64 {
        self.idte() + self.idle() + self.idd()
    }

    /// Clause 7.4: talker echo,
    /// Idte = ((Roe − Re)/2 + √((Roe − Re)²/4 + 100) − 1)·(1 − e^(−T)), with
    /// Roe = −1.5·(No − RLR), Re = 80 + 2.5·(TERV − 14) and
    /// TERV = TELR − 40·log10((1 + T/10)/(1 + T/150)) + 6·e^(−0.3·T²); for STMR < 9 dB TERV is
    /// replaced by TERVs = TERV + Ist/2. The factor (1 − e^(−T)) makes Idte vanish at T = 0,
    /// where the echo merges with sidetone.
    pub fn idte(&self) -> f64 {
        let t = self.t;
        let mut terv = self.telr - 40.0 * ((1.0 + t / 10.0) / (1.0 + t / 150.0)).log10() + 6.0 * (-0.3 * t * t).exp();
        if self.stmr < 9.0 {
            terv += self.ist() / 2.0;
        }
        let roe = -1.5 * (self.no() - self.rlr);
        let re = 80.0 + 2.5 * (terv - 14.0);
        let d = roe - re;
        (d / 2.0 + (d * d / 4.0 + 100.0).sqrt() - 1.0) * (1.0 - (-t).exp())
    }

    /// Clause 7.4: listener echo, Idle = (Ro − Rle)/2 + √((Ro − Rle)²/4 + 169) with
    /// Rle = 10.5·(WEPL + 7)·(Tr + 1)^(−1/4).
    pub fn idle(&self) -> f64 {
        let rle = 10.5 * (self.wepl + 7.0) * (self.tr + 1.0).powf(-0.25);
        let d = self.ro() - rle;
        d / 2.0 + (d * d / 4.0 + 169.0).sqrt()
    }

    /// Clause 7.4: too long an absolute delay, even with perfect echo cancelling. Idd = 0 for
    /// Ta ≤ mT; above it, with X = log10(Ta/mT)/log10(2) and k = 6·sT,
    /// Idd = 25·((1 + X^k)^(1/k) − 3·(1 + (X/3)^k)^(1/k) + 2).
    pub fn idd(&self) -> f64 {
        if self.ta <= self.mt {
            return 0.0;
        }
        let x = (self.ta / self.mt).log10() / 2f64.log10();
        let k = 6.0 * self.st;
        25.0 * ((1.0 + x.powf(k)).powf(1.0 / k) - 3.0 * (1.0 + (x / 3.0).powf(k)).powf(1.0 / k) + 2.0)
    }

    /// Clause 7.5: the effective equipment impairment factor with packet loss,
    /// Ie,eff = Ie + (95 − Ie)·Ppl/(Ppl/BurstR + Bpl), Ppl in percent.
    pub fn ie_eff(&self) -> f64 {
        self.ie + (95.0 - self.ie) * self.ppl / (self.ppl / self.burst_r + self.bpl)
    }

    /// R and the MOS it maps to.
    pub fn score(&self) -> Score {
        let r = self.r();
        Score { r, mos: mos_from_r(r) }
    }
}

/// G.107 Annex B (B-4): the estimated conversational MOS of a rating R. MOS = 1 for R < 0,
/// 4.5 for R > 100, and 1 + 0.035·R + R·(R − 60)·(100 − R)·7·10⁻⁶ between (continuous at both
/// ends). The polynomial dips below the scale's floor for 0 < R < 6.5 (to 0.9888 at R ≈ 3.3):
/// there the MOS is 1, the lowest score the scale has, so the result always lies in [1, 4.5].
pub fn mos_from_r(r: f64) -> f64 {
    if r < 0.0 {
        1.0
    } else if r > 100.0 {
        4.5
    } else {
        (1.0 + 0.035 * r + r * (r - 60.0) * (100.0 - r) * 7e-6).max(1.0)
    }
}

/// Scores one direction of a call from what the network did to its datagrams.
///
/// `mean_one_way_delay_s` is the delay the E-model takes as mouth-to-ear, in seconds: rtolab
/// passes the network's mean one-way delay of the datagrams received (late ones included),
/// without packetisation or a jitter buffer, which it does not model; `loss_ratio` is the
/// fraction of datagrams that did not play out, counting those that arrived too late as lost. Both must be finite, the delay ≥ 0 and the ratio within [0, 1].
///
/// The E-model inputs: T = Ta = the delay in ms (echo and absolute delay are the same path),
/// Tr = 2·T (the round trip of the echo loop), Ie and Bpl from the codec (G.113 Appendix I),
/// Ppl = 100·loss_ratio, BurstR = 1 (loss taken as random), every other parameter at its
/// G.107 default (handset telephony, TELR 65 dB, i.e. echo control at both ends).
pub fn score_call(codec: Codec, mean_one_way_delay_s: f64, loss_ratio: f64) -> Score {
    assert!(mean_one_way_delay_s.is_finite() && mean_one_way_delay_s >= 0.0, "one-way delay must be finite and ≥ 0, got {mean_one_way_delay_s}");
    assert!((0.0..=1.0).contains(&loss_ratio), "loss ratio must be within [0, 1], got {loss_ratio}");
    let t_ms = mean_one_way_delay_s * 1e3;
    Params { t: t_ms, ta: t_ms, tr: 2.0 * t_ms, ie: codec.ie(), bpl: codec.bpl(), ppl: 100.0 * loss_ratio, burst_r: 1.0, ..Params::default() }.score()
}

#[cfg(test)]
#[path = "emodel_tests.rs"]
mod tests;
