//! The error of a registered model's table (a channel model's `loss`, a queue's `queue`):
//! the checks its types cannot express name the field inside the table.

/// A table that cannot run: the field (inside the table) and what is wrong with it.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    pub field: &'static str,
    pub message: String,
}

impl FieldError {
    pub fn new(field: &'static str, message: impl Into<String>) -> Self {
        FieldError { field, message: message.into() }
    }
}
