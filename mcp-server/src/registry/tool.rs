//! Tool routes.

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};
use typemcp_core::McpError;
use typemcp_core::protocol::{CallToolResult, Meta, Outcome, Tool, ToolAnnotations};

#[cfg(feature = "http")]
use super::param_headers::ParamHeaders;
use super::{BoxFuture, RouteFn, erase};
use super::{param_headers, schema};
use crate::BuildError;
use crate::handler::{Handler, IntoToolResult, Invocation, Requirements};
use crate::tasks::TaskSupport;

/// A tool: its description and its handler.
///
/// ```
/// use typemcp_server::ToolRoute;
/// let route = ToolRoute::new("now", || async { "12:00" }).description("The time.").read_only();
/// assert_eq!(route.tool().name, "now");
/// assert_eq!(route.tool().annotations.as_ref().and_then(|a| a.read_only_hint), Some(true));
/// ```
#[derive(Clone)]
pub struct ToolRoute {
    tool: Tool,
    call: Arc<RouteFn<CallToolResult>>,
    requirements: Requirements,
    /// Whether calls may run as tasks (the tasks extension).
    task_support: TaskSupport,
    /// Validation against the input schema before the handler runs (opt-in, feature
    /// `schema-validation`): compiled when the route is registered.
    #[cfg(feature = "schema-validation")]
    validation: schema::Validation,
    /// The arguments mirrored into `Mcp-Param-*` headers (`x-mcp-header`): read from the
    /// input schema when the route is registered.
    #[cfg(feature = "http")] // Read by the HTTP transport.
    param_headers: ParamHeaders,
}

impl fmt::Debug for ToolRoute {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolRoute")
            .field("tool", &self.tool)
            .finish_non_exhaustive()
    }
}

impl ToolRoute {
    /// A tool named `name` served by `handler`. The input schema comes from the handler's
    /// `Arguments<T>` parameter (no arguments: an empty object), the output schema from its
    /// return type (`Json<T>`).
    pub fn new<H, M>(name: impl Into<String>, handler: H) -> Self
    where
        H: Handler<M>,
        H::Output: IntoToolResult,
    {
        let mut generator = schema::generator();
        let mut tool = Tool::new(name);
        if let Some(input) = H::argument_schema(&mut generator) {
            tool.input_schema = schema::to_object(input);
            schema::move_definitions(&mut generator, &mut tool.input_schema);
            schema::keep_standard_formats(&mut tool.input_schema);
        }
        tool.output_schema = <H::Output as IntoToolResult>::output_schema(&mut schema::generator())
            .map(schema::to_object)
            .map(|mut output| {
                schema::keep_standard_formats(&mut output);
                output
            });
        let call = erase(
            handler,
            |message| Ok(Outcome::Complete(CallToolResult::error(message))),
            |_| IntoToolResult::into_tool_result,
        );
        let mut route = Self {
            tool,
            call,
            requirements: Requirements::default(),
            task_support: TaskSupport::Never,
            #[cfg(feature = "schema-validation")]
            validation: schema::Validation::default(),
            #[cfg(feature = "http")]
            param_headers: ParamHeaders::default(),
        };
        H::requirements(&mut route.requirements);
        route
    }

    /// The tool description as listed.
    pub fn tool(&self) -> &Tool {
        &self.tool
    }

    /// Sets the description (what the tool does, for the model).
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.tool.description = Some(description.into());
        self
    }

    /// Sets the display title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.tool.title = Some(title.into());
        self
    }

    /// Sets all annotations at once.
    #[must_use]
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.tool.annotations = Some(annotations);
        self
    }

    /// Marks the tool read-only (`readOnlyHint`).
    #[must_use]
    pub fn read_only(mut self) -> Self {
        self.annotations_mut().read_only_hint = Some(true);
        self
    }

    /// Marks the tool destructive (`destructiveHint`).
    #[must_use]
    pub fn destructive(mut self) -> Self {
        self.annotations_mut().destructive_hint = Some(true);
        self
    }

    /// Marks the tool idempotent (`idempotentHint`).
    #[must_use]
    pub fn idempotent(mut self) -> Self {
        self.annotations_mut().idempotent_hint = Some(true);
        self
    }

    /// Sets `openWorldHint`.
    #[must_use]
    pub fn open_world(mut self, open: bool) -> Self {
        self.annotations_mut().open_world_hint = Some(open);
        self
    }

    /// Lets calls run as tasks (the tasks extension, [`TaskSupport::Optional`]): for a
    /// client that declared the extension, a call still running after the server's
    /// [`task_grace`](crate::ServerBuilder::task_grace) is answered with a task, which the
    /// client polls; any other client waits for the result. `#[tool(task)]` does the same.
    #[must_use]
    pub fn task(mut self) -> Self {
        self.task_support = TaskSupport::Optional;
        self
    }

    /// Serves only clients that can take a task ([`TaskSupport::Required`]): one that did not
    /// declare the tasks extension gets `-32021`; for the others it is like
    /// [`task`](Self::task). `#[tool(task = "required")]` does the same.
    #[must_use]
    pub fn task_required(mut self) -> Self {
        self.task_support = TaskSupport::Required;
        self
    }

    /// Whether calls may run as tasks.
    pub fn task_support(&self) -> TaskSupport {
        self.task_support
    }

    /// Replaces the input schema (its root must be `type: "object"`). The schema is what
    /// clients see; arguments are still checked by parsing them into the handler's types.
    /// To also validate them against a hand-written schema, enable the `schema-validation`
    /// feature and call `validate_arguments()`.
    ///
    /// A property may ask HTTP clients to mirror its argument into an `Mcp-Param-{Name}`
    /// header with `"x-mcp-header": "Name"` (SEP-2243). Such annotations are checked when the
    /// route is registered: a non-empty header-name token, unique case-insensitively, on a
    /// `string`, `integer` or `boolean` property reached through `properties` alone; otherwise
    /// [`BuildError::InvalidParamHeader`](crate::BuildError::InvalidParamHeader).
    #[must_use]
    pub fn input_schema(mut self, schema: Map<String, Value>) -> Self {
        self.tool.input_schema = schema;
        self
    }

    /// Replaces the output schema.
    #[must_use]
    pub fn output_schema(mut self, schema: Map<String, Value>) -> Self {
        self.tool.output_schema = Some(schema);
        self
    }

    /// Sets the tool's `_meta`.
    #[must_use]
    pub fn meta(mut self, meta: Meta) -> Self {
        self.tool.meta = Some(meta);
        self
    }

    /// Validates arguments against the input schema (JSON Schema 2020-12, with `jsonschema`)
    /// before the handler runs; a violation is a tool execution error (`isError`) listing
    /// every problem with its path. For hand-written schemas whose constraints the handler's
    /// types do not express. The schema is compiled when the route is registered, and a
    /// schema that does not compile is a [`BuildError`](crate::BuildError).
    #[cfg(feature = "schema-validation")]
    #[must_use]
    pub fn validate_arguments(mut self) -> Self {
        self.validation = schema::Validation::enabled();
        self
    }

    fn annotations_mut(&mut self) -> &mut ToolAnnotations {
        self.tool
            .annotations
            .get_or_insert_with(ToolAnnotations::default)
    }

    /// Checks the input schema (and compiles its validator, when asked for) and reads its
    /// `x-mcp-header` annotations: the route as registered. Called when the tool is registered.
    pub(crate) fn prepare(&self) -> Result<Self, BuildError> {
        let name = &self.tool.name;
        if !schema::root_is_object(&self.tool.input_schema) {
            let error =
                schema::invalid_schema("input", name, "the root must be `type: \"object\"`");
            return Err(BuildError::InvalidSchema(error.message.into_owned()));
        }
        #[cfg(feature = "schema-validation")]
        self.validation
            .compile(&self.tool.input_schema)
            .map_err(|why| {
                let error = schema::invalid_schema("input", name, &why);
                BuildError::InvalidSchema(error.message.into_owned())
            })?;
        // Checked whatever the transports (clients drop a tool whose annotations break the
        // rules), kept only for the HTTP transport.
        let mirrored = param_headers::scan(&self.tool.input_schema).map_err(|invalid| {
            BuildError::InvalidParamHeader {
                tool: name.clone(),
                property: invalid.property,
                reason: invalid.reason,
            }
        })?;
        #[cfg(feature = "http")]
        return Ok(Self {
            param_headers: ParamHeaders::from(mirrored),
            ..self.clone()
        });
        #[cfg(not(feature = "http"))]
        {
            let _ = mirrored;
            Ok(self.clone())
        }
    }

    /// The arguments mirrored into `Mcp-Param-*` headers (known once registered).
    #[cfg(feature = "http")] // Read by the HTTP transport.
    pub(crate) fn param_headers(&self) -> &ParamHeaders {
        &self.param_headers
    }

    /// Validates arguments against the input schema, when the route asked for it.
    pub(crate) fn check_arguments(&self, arguments: &Value) -> Result<(), String> {
        #[cfg(feature = "schema-validation")]
        return self.validation.check(arguments);
        #[cfg(not(feature = "schema-validation"))]
        {
            let _ = arguments;
            Ok(())
        }
    }

    /// What the handler needs from the server.
    pub(crate) fn requirements(&self) -> &Requirements {
        &self.requirements
    }

    pub(crate) fn call(
        &self,
        invocation: Invocation,
    ) -> BoxFuture<Result<Outcome<CallToolResult>, McpError>> {
        (self.call)(invocation)
    }
}
