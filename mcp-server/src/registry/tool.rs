//! Tool routes.

use std::sync::Arc;

use serde_json::{Map, Value};
use typemcp_core::McpError;
use typemcp_core::protocol::{CallToolResult, Meta, Outcome, Tool, ToolAnnotations};

#[cfg(feature = "http")]
use super::param_headers::ParamHeaders;
use super::{BoxFuture, RouteFn, erase};
use super::{param_headers, schema};
use crate::build_error::BuildError;
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

debug_fields!(ToolRoute, tool);

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

    setters! {
        /// Sets the description (what the tool does, for the model).
        pub fn description(description: impl Into<String>) |b|
            b.tool.description = Some(description.into());

        /// Sets the display title.
        pub fn title(title: impl Into<String>) |b| b.tool.title = Some(title.into());

        /// Sets all annotations at once.
        pub fn annotations(annotations: ToolAnnotations) |b| b.tool.annotations = Some(annotations);

        /// Marks the tool read-only (`readOnlyHint`).
        pub fn read_only() |b| b.annotations_mut().read_only_hint = Some(true);

        /// Marks the tool destructive (`destructiveHint`).
        pub fn destructive() |b| b.annotations_mut().destructive_hint = Some(true);

        /// Marks the tool idempotent (`idempotentHint`).
        pub fn idempotent() |b| b.annotations_mut().idempotent_hint = Some(true);

        /// Sets `openWorldHint`.
        pub fn open_world(open: bool) |b| b.annotations_mut().open_world_hint = Some(open);

        /// Lets calls run as tasks (the tasks extension, [`TaskSupport::Optional`]): for a
        /// client that declared the extension, a call still running after the server's
        /// [`task_grace`](crate::ServerBuilder::task_grace) is answered with a task, which the
        /// client polls; any other client waits for the result. `#[tool(task)]` does the same.
        pub fn task() |b| b.task_support = TaskSupport::Optional;

        /// Serves only clients that can take a task ([`TaskSupport::Required`]): one that did not
        /// declare the tasks extension gets `-32021`; for the others it is like
        /// [`task`](Self::task). `#[tool(task = "required")]` does the same.
        pub fn task_required() |b| b.task_support = TaskSupport::Required;
    }

    /// Whether calls may run as tasks.
    pub fn task_support(&self) -> TaskSupport {
        self.task_support
    }

    setters! {
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
        pub fn input_schema(schema: Map<String, Value>) |b| b.tool.input_schema = schema;

        /// Replaces the output schema.
        pub fn output_schema(schema: Map<String, Value>) |b| b.tool.output_schema = Some(schema);

        /// Sets the tool's `_meta`.
        pub fn meta(meta: Meta) |b| b.tool.meta = Some(meta);

        /// Validates arguments against the input schema (JSON Schema 2020-12, with `jsonschema`)
        /// before the handler runs; a violation is a tool execution error (`isError`) listing
        /// every problem with its path. For hand-written schemas whose constraints the handler's
        /// types do not express. The schema is compiled when the route is registered, and a
        /// schema that does not compile is a [`BuildError`](crate::BuildError).
        #[cfg(feature = "schema-validation")]
        pub fn validate_arguments() |b| b.validation = schema::Validation::enabled();
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
            param_headers: ParamHeaders::new(mirrored),
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
    pub(crate) fn check_arguments(
        &self,
        arguments: &typemcp_core::jsonrpc::Params,
    ) -> Result<(), String> {
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
