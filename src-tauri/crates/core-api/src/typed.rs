//! [`TypedTool`]: a tool written against its input type. The blanket
//! [`Tool`] impl parses the arguments once (with [`parse_args`]'s plain,
//! field-naming errors), checks them with [`TypedTool::validate`] before the
//! gate, and runs the blocking body on tokio's blocking pool, so no tool
//! repeats a `parse_args` call or its own `invalid` helper.

use std::path::Path;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{
    BoxFuture, CallRoute, RestartHint, Tool, ToolCategory, ToolDescriptionLength, ToolError,
    ToolPresentation, ToolResult, ToolTraits, input_schema, parse_args,
};

/// A tool with a typed input. Implement `run` (blocking work, run off the
/// async workers) or override `run_async` for natively async work.
pub trait TypedTool: Clone + Send + Sync + 'static {
    type Input: JsonSchema + DeserializeOwned + Send + 'static;

    fn name(&self) -> &str;
    fn description(&self) -> &str;
    fn category(&self) -> ToolCategory;

    /// Checks that need no I/O (ranges, non-empty strings). Runs before the
    /// approval gate and again before `run`.
    fn validate(&self, _input: &Self::Input) -> Result<(), ToolError> {
        Ok(())
    }

    /// The work, given valid input. Blocking is fine: it runs on the
    /// blocking pool.
    fn run(&self, _input: Self::Input) -> ToolResult {
        Err(ToolError::NotImplemented(self.name().to_string()))
    }

    /// The work as a future; by default `run` on the blocking pool.
    fn run_async(&self, input: Self::Input) -> BoxFuture<'static, ToolResult> {
        let this = self.clone();
        Box::pin(async move {
            let name = this.name().to_string();
            match tokio::task::spawn_blocking(move || this.run(input)).await {
                Ok(result) => result,
                Err(e) => Err(ToolError::Failed(format!(
                    "{name} stopped unexpectedly: {e}"
                ))),
            }
        })
    }

    fn describe(&self, _args: &Value, _length: ToolDescriptionLength) -> String {
        self.name().to_string()
    }
    fn target_path(&self, _args: &Value) -> Option<String> {
        None
    }
    fn effective_args(&self, args: Value, _workdir: &Path) -> Value {
        args
    }
    fn restart_hint(&self) -> RestartHint {
        RestartHint::Rerun
    }
    fn traits(&self) -> ToolTraits {
        ToolTraits::default()
    }
    fn presentation(&self) -> ToolPresentation {
        ToolPresentation::Generic
    }
    /// See [`Tool::route`]; given valid input (a call that does not parse
    /// fails as an execution).
    fn route(&self, _input: &Self::Input) -> CallRoute {
        CallRoute::Execute
    }
    /// See [`Tool::predict_content`]; given valid input.
    fn predict(&self, _input: &Self::Input, _current: Option<&str>) -> Option<String> {
        None
    }
    fn sub_agents_only(&self) -> bool {
        false
    }
    fn root_agent_only(&self) -> bool {
        false
    }

    /// Parses and validates `args` for this tool.
    fn input(&self, args: Value) -> Result<Self::Input, ToolError> {
        let input: Self::Input = parse_args(self.name(), args)?;
        self.validate(&input)?;
        Ok(input)
    }

    /// An [`ToolError::InvalidArguments`] of this tool.
    fn invalid(&self, reason: impl Into<String>) -> ToolError {
        ToolError::InvalidArguments {
            tool: self.name().to_string(),
            reason: reason.into(),
        }
    }
}

impl<T: TypedTool> Tool for T {
    fn name(&self) -> &str {
        TypedTool::name(self)
    }
    fn description(&self) -> &str {
        TypedTool::description(self)
    }
    fn parameters_schema(&self) -> Value {
        input_schema::<T::Input>()
    }
    fn describe(&self, args: &Value, length: ToolDescriptionLength) -> String {
        TypedTool::describe(self, args, length)
    }
    fn target_path(&self, args: &Value) -> Option<String> {
        TypedTool::target_path(self, args)
    }
    fn effective_args(&self, args: Value, workdir: &Path) -> Value {
        TypedTool::effective_args(self, args, workdir)
    }
    fn check_args(&self, args: &Value) -> Result<(), ToolError> {
        self.input(args.clone()).map(drop)
    }
    fn execute(&self, args: Value) -> ToolResult {
        TypedTool::run(self, self.input(args)?)
    }
    fn execute_async<'a>(&'a self, args: Value) -> BoxFuture<'a, ToolResult> {
        match self.input(args) {
            Ok(input) => self.run_async(input),
            Err(e) => Box::pin(std::future::ready(Err(e))),
        }
    }
    fn category(&self) -> ToolCategory {
        TypedTool::category(self)
    }
    fn sub_agents_only(&self) -> bool {
        TypedTool::sub_agents_only(self)
    }
    fn root_agent_only(&self) -> bool {
        TypedTool::root_agent_only(self)
    }
    fn restart_hint(&self) -> RestartHint {
        TypedTool::restart_hint(self)
    }
    fn traits(&self) -> ToolTraits {
        TypedTool::traits(self)
    }
    fn presentation(&self) -> ToolPresentation {
        TypedTool::presentation(self)
    }
    fn route(&self, args: &Value) -> CallRoute {
        self.input(args.clone())
            .map_or(CallRoute::Execute, |input| TypedTool::route(self, &input))
    }
    fn predict_content(&self, args: &Value, current: Option<&str>) -> Option<String> {
        let input = self.input(args.clone()).ok()?;
        TypedTool::predict(self, &input, current)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct EchoInput {
        /// What to say.
        text: String,
    }

    #[derive(Clone)]
    struct Echo;

    impl TypedTool for Echo {
        type Input = EchoInput;
        fn name(&self) -> &str {
            "echo"
        }
        fn description(&self) -> &str {
            "Says it back."
        }
        fn category(&self) -> ToolCategory {
            ToolCategory::Introspection
        }
        fn validate(&self, input: &EchoInput) -> Result<(), ToolError> {
            if input.text.is_empty() {
                return Err(self.invalid("text is empty"));
            }
            Ok(())
        }
        fn run(&self, input: EchoInput) -> ToolResult {
            Ok(input.text)
        }
    }

    #[tokio::test]
    async fn parses_once_validates_and_runs_off_the_workers() {
        let tool: &dyn Tool = &Echo;
        assert_eq!(tool.parameters_schema()["required"], json!(["text"]));
        assert_eq!(
            tool.execute_async(json!({"text": "hi"})).await,
            Ok("hi".into())
        );
        let e = tool.check_args(&json!({"text": ""})).unwrap_err();
        assert_eq!(e.to_string(), "invalid arguments for echo: text is empty");
        let e = tool.execute_async(json!({"text": 5})).await.unwrap_err();
        assert!(e.is_invalid_arguments(), "{e}");
        assert_eq!(tool.execute(json!({"text": "sync"})), Ok("sync".into()));
    }
}
