//! The approval card: what a person is shown of a call waiting for them,
//! built from what its tool declares (labels, target path, traits).

use serde_json::Value;
use skald_core_api::{ToolDescriptionLength, ToolPresentation, ToolTraits};
use skald_protocol::{ApprovalKind, ApprovalRequest};
use skald_store::ToolCallRow;
use skald_tools::CallLabels;

use super::DECISION_REQUIRE;
use crate::assemble::arguments_value;

/// What an approval card shows of a call, as its tool declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallCard {
    pub label_short: String,
    pub label_full: String,
    /// The file the call acts on, if any.
    pub path: Option<String>,
    pub traits: ToolTraits,
    pub presentation: ToolPresentation,
}

impl CallCard {
    /// The card of a call to `name` with `args`, from `tools` (a round's
    /// `ToolSet`, or the registry where no round runs).
    pub fn of(tools: &dyn CallLabels, name: &str, args: &Value) -> Self {
        Self {
            label_short: tools.describe_call(name, args, ToolDescriptionLength::Short),
            label_full: tools.describe_call(name, args, ToolDescriptionLength::Full),
            path: tools.target_path(name, args),
            traits: tools.traits_of(name),
            presentation: tools.presentation_of(name),
        }
    }
}

/// The card of a call waiting for approval: a tool that declares it writes
/// files gets a diff, one presented as a command (`execute_cmd`) its command
/// line, others the arguments.
pub fn approval_request(
    card: CallCard,
    id: &str,
    name: &str,
    arguments: Value,
    reason: String,
    old: Option<String>,
    new: Option<String>,
) -> ApprovalRequest {
    let kind = if card.traits.writes_files {
        ApprovalKind::Write {
            path: card.path.clone().unwrap_or_default(),
            old_content: old,
            new_content: new,
        }
    } else if card.presentation == ToolPresentation::Command {
        let s = |k: &str| arguments.get(k).and_then(Value::as_str).map(str::to_string);
        ApprovalKind::Command {
            command: s("command").unwrap_or_default(),
            working_dir: s("workdir"),
        }
    } else {
        ApprovalKind::Generic
    };
    ApprovalRequest {
        tool_call_id: id.to_string(),
        name: name.to_string(),
        label_short: card.label_short,
        label_full: card.label_full,
        path: card.path,
        arguments,
        reason,
        kind,
    }
}

/// The card of a stored pending row (the Inbox after a restart).
pub(crate) fn request_of_row(registry: &dyn CallLabels, row: &ToolCallRow) -> ApprovalRequest {
    let arguments = arguments_value(&row.arguments);
    approval_request(
        CallCard::of(registry, &row.name, &arguments),
        &row.id,
        &row.name,
        arguments,
        row.decision_reason
            .clone()
            .unwrap_or_else(|| "waiting for approval".to_string()),
        row.old_preview.clone(),
        row.new_preview.clone(),
    )
}

/// Whether a stored row waits for a person's approval (and so survives a
/// restart untouched, for the Inbox).
pub(crate) fn awaits_approval(row: &ToolCallRow) -> bool {
    row.status == skald_store::ToolCallStatus::Pending
        && row.decision.as_deref() == Some(DECISION_REQUIRE)
}
