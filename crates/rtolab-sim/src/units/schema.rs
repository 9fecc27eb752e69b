//! JSON Schema for the unit-carrying types: each is a string with a unit or a plain number.

use super::quantity::{
    Bytes, Distance, Duration, FlowSize, Limit, Probability, Rate, BYTES_FORM, DISTANCE_FORM, DURATION_FORM, LIMIT_FORM,
    PROBABILITY_FORM, RATE_FORM, SIZE_FORM,
};
use super::rv::{DurationRv, SizeRv, SpeedRv};
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use std::borrow::Cow;

macro_rules! text_or_number_schema {
    ($ty:ty, $name:literal, $desc:expr) => {
        impl JsonSchema for $ty {
            fn schema_name() -> Cow<'static, str> {
                $name.into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!({ "description": $desc, "type": ["string", "number"] })
            }
        }
    };
}

text_or_number_schema!(Rate, "Rate", RATE_FORM);
text_or_number_schema!(Duration, "Duration", DURATION_FORM);
text_or_number_schema!(Bytes, "Bytes", BYTES_FORM);
text_or_number_schema!(Limit, "QueueLimit", LIMIT_FORM);
text_or_number_schema!(FlowSize, "FlowSize", SIZE_FORM);
text_or_number_schema!(Distance, "Distance", DISTANCE_FORM);
text_or_number_schema!(SpeedRv, "RandomSpeed", "a speed or a distribution of speeds, e.g. \"3km/h\", \"uniform(0km/h, 6km/h)\"");
text_or_number_schema!(SizeRv, "RandomSize", "a size or a distribution of sizes, e.g. \"pareto(mean=25000B, shape=1.1)\"");

impl JsonSchema for Probability {
    fn schema_name() -> Cow<'static, str> {
        "Probability".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "description": PROBABILITY_FORM, "type": "number", "minimum": 0.0, "maximum": 1.0 })
    }
}

impl JsonSchema for DurationRv {
    fn schema_name() -> Cow<'static, str> {
        "RandomDuration".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "a duration or a distribution of durations, e.g. \"uniform(10s, 30s)\", \"exp(1.5s)\"; or a two-state Markov-modulated exponential (paper 003, Sec. 3.1)",
            "anyOf": [
                { "type": ["string", "number"] },
                {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["markov"],
                    "properties": { "markov": {
                        "description": "the mean of the exponential in each state, and the probabilities of leaving state 0 (p01) and state 1 (p10) after each draw",
                        "type": "object",
                        "additionalProperties": false,
                        "required": ["means", "p01", "p10"],
                        "properties": {
                            "means": { "description": "the exponential's mean in state 0 and in state 1 (durations)", "type": "array", "minItems": 2, "maxItems": 2, "items": { "type": ["string", "number"] } },
                            "p01": { "description": "probability of going from state 0 to state 1 after a draw", "type": "number", "minimum": 0.0, "maximum": 1.0 },
                            "p10": { "description": "probability of going from state 1 to state 0 after a draw", "type": "number", "minimum": 0.0, "maximum": 1.0 }
                        }
                    } }
                }
            ]
        })
    }
}
