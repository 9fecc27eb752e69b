//! Voice calls: the codecs a call can use and the ITU-T G.107 E-model that scores it.
//!
//! `codec` gives each codec's packetisation (frame interval, RTP payload, datagram size) and its
//! impairment factors from ITU-T G.113 Appendix I. `emodel` turns a call's one-way delay and
//! loss into the transmission rating R and an estimated MOS (G.107 Annex B). Nothing here runs
//! on the event queue: the caller measures a call's datagrams and asks for a score.

pub mod codec;
pub mod emodel;
