//! Every shape of parameter type works end to end: enums (unit, internally tagged,
//! untagged), nested structs, `Option`, `Vec`, maps and recursive types, as named `#[tool]`
//! and `#[prompt]` parameters and inside an `Arguments<T>` struct. For each, the listed
//! input schema is self-contained (every `$ref` resolves inside it, through the root's
//! `$defs`), a valid call reaches the handler, and an invalid one is refused with the JSON path
//! of the problem, before the handler runs.

#![allow(clippy::unwrap_used, clippy::expect_used)]
// Some fields exist only to be parsed (and shown through `Debug`).
#![allow(dead_code)]

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use typemcp_client::{Client, ClientError, ToolResultExt};
use typemcp_server::{Arguments, Server, ToolInput, prompt, tool};

use crate::support::client::{connect, json_of};

/// A unit-only enum (a `$ref` to a `oneOf` of constants).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Color {
    Red,
    Green,
}

/// An internally tagged enum with data.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Shape {
    Circle { radius: f64 },
    Square { side: f64 },
}

/// An untagged enum.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
enum IdOrName {
    Id(u32),
    Name(String),
}

/// A nested struct.
#[derive(Debug, Deserialize, JsonSchema)]
struct Point {
    x: i32,
    y: i32,
}

/// A struct holding another struct.
#[derive(Debug, Deserialize, JsonSchema)]
struct Segment {
    from: Point,
    to: Point,
}

/// A recursive type.
#[derive(Debug, Deserialize, JsonSchema)]
struct Tree {
    label: String,
    #[serde(default)]
    children: Vec<Tree>,
}

impl Tree {
    fn size(&self) -> usize {
        1 + self.children.iter().map(Tree::size).sum::<usize>()
    }
}

/// Takes every shape as a named parameter.
#[tool]
#[allow(clippy::too_many_arguments)] // One parameter per shape, on purpose.
async fn shapes(
    color: Color,
    shape: Shape,
    who: IdOrName,
    segment: Segment,
    tree: Tree,
    maybe: Option<Point>,
    points: Vec<Point>,
    weights: BTreeMap<String, Color>,
) -> String {
    let area = match shape {
        Shape::Circle { radius } => 3.0 * radius * radius,
        Shape::Square { side } => side * side,
    };
    format!(
        "{color:?} {area} {who:?} {} {} {} {} {}",
        segment.to.x - segment.from.x,
        tree.size(),
        maybe.map_or(0, |p| p.y),
        points.len(),
        weights.len()
    )
}

/// The same shapes inside one arguments struct.
#[derive(Debug, Deserialize, JsonSchema, ToolInput)]
struct Everything {
    color: Color,
    shape: Shape,
    tree: Tree,
    maybe: Option<Segment>,
    weights: BTreeMap<String, Vec<Point>>,
}

/// Takes the shapes as one `Arguments<T>`.
#[tool]
async fn everything(Arguments(all): Arguments<Everything>) -> String {
    format!("{:?} {} {}", all.color, all.tree.size(), all.weights.len())
}

/// A prompt whose argument is an enum.
#[prompt]
async fn paint(color: Color) -> String {
    format!("Paint it {color:?}.")
}

fn server() -> Server {
    Server::builder()
        .tool(shapes)
        .tool(everything)
        .prompt(paint)
        .build()
        .expect("every shape builds")
}

/// A client of [`server`], in process.
async fn client() -> Client {
    connect(server(), Client::builder()).await
}

/// Follows every `$ref` in `schema` and asserts it resolves inside `root`.
fn assert_refs_resolve(root: &Value, schema: &Value) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                let pointer = reference
                    .strip_prefix('#')
                    .unwrap_or_else(|| panic!("non-local $ref {reference}"));
                assert!(
                    root.pointer(pointer).is_some(),
                    "$ref {reference} does not resolve in {root:#}"
                );
            }
            map.values().for_each(|v| assert_refs_resolve(root, v));
        }
        Value::Array(items) => items.iter().for_each(|v| assert_refs_resolve(root, v)),
        _ => {}
    }
}

/// The input schema `client` lists for the tool `name`.
async fn tool_schema(client: &Client, name: &str) -> Value {
    let tools = client.list_tools().await.unwrap();
    let tool = tools.into_iter().find(|t| t.name == name);
    Value::Object(
        tool.unwrap_or_else(|| panic!("{name} is listed"))
            .input_schema,
    )
}

fn valid_shapes() -> Value {
    json!({
        "color": "green",
        "shape": {"kind": "square", "side": 2.0},
        "who": 7,
        "segment": {"from": {"x": 1, "y": 2}, "to": {"x": 4, "y": 6}},
        "tree": {"label": "a", "children": [{"label": "b"}, {"label": "c", "children": [{"label": "d"}]}]},
        "maybe": {"x": 0, "y": 9},
        "points": [{"x": 1, "y": 1}],
        "weights": {"w": "red"}
    })
}

/// Whether calling `name` with `arguments` is a tool error (never a protocol error), and
/// its text.
async fn call(client: &Client, name: &str, arguments: Value) -> (bool, String) {
    let result = client.call_tool(name, arguments).await;
    let result = result.unwrap_or_else(|e| panic!("a tool result, not a protocol error: {e}"));
    (result.is_tool_error(), result.text())
}

#[tokio::test]
async fn listed_schemas_are_self_contained() {
    let client = client().await;
    for name in ["shapes", "everything"] {
        let schema = &tool_schema(&client, name).await;
        assert_eq!(schema["type"], "object", "{name}");
        assert_refs_resolve(schema, schema);
        // The referenced definitions are in the root's `$defs`.
        for def in ["Color", "Shape", "Tree"] {
            assert!(
                schema["$defs"][def].is_object(),
                "{name} lacks $defs/{def}: {schema:#}"
            );
        }
    }
    // The recursive type refers to itself through `$defs`.
    let named = &tool_schema(&client, "shapes").await;
    assert_refs_resolve(named, &named["$defs"]["Tree"]);
    assert_eq!(
        named["required"],
        json!([
            "color", "shape", "who", "segment", "tree", "points", "weights"
        ]),
        "`Option` parameters are optional"
    );
}

#[tokio::test]
async fn valid_arguments_of_every_shape_reach_the_handler() {
    let client = client().await;
    let (is_error, text) = call(&client, "shapes", valid_shapes()).await;
    assert!(!is_error, "{text}");
    assert_eq!(text, "Green 4 Id(7) 3 4 9 1 1");

    let mut without_option = valid_shapes();
    without_option.as_object_mut().unwrap().remove("maybe");
    let (is_error, text) = call(&client, "shapes", without_option).await;
    assert!(!is_error, "{text}");
    assert!(text.ends_with(" 0 1 1"), "{text}");

    let (is_error, text) = call(
        &client,
        "everything",
        json!({
            "color": "red",
            "shape": {"kind": "circle", "radius": 1.0},
            "tree": {"label": "root", "children": [{"label": "leaf"}]},
            "weights": {"a": [{"x": 1, "y": 2}], "b": []}
        }),
    )
    .await;
    assert!(!is_error, "{text}");
    assert_eq!(text, "Red 2 2");
}

#[tokio::test]
async fn invalid_arguments_name_the_path_of_the_first_problem() {
    let client = client().await;
    let cases: [(&str, Value, &str); 9] = [
        ("color", json!("blue"), "at `color`: unknown variant `blue`"),
        (
            "shape",
            json!({"kind": "triangle"}),
            "at `shape.kind`: unknown variant `triangle`",
        ),
        ("shape", json!({"kind": "circle"}), "missing field `radius`"),
        ("who", json!(true), "at `who`"),
        (
            "segment",
            json!({"from": {"x": 1, "y": 2}, "to": {"x": "far", "y": 0}}),
            "at `segment.to.x`",
        ),
        (
            "tree",
            json!({"label": "a", "children": [{"label": 5}]}),
            "at `tree.children[0].label`",
        ),
        (
            "points",
            json!([{"x": 1, "y": 1}, {"x": 1}]),
            "at `points[1]`: missing field `y`",
        ),
        ("weights", json!({"w": "purple"}), "at `weights.w`"),
        ("maybe", json!({"x": 0}), "at `maybe`: missing field `y`"),
    ];
    for (field, value, expected) in cases {
        let mut arguments = valid_shapes();
        arguments[field] = value;
        let (is_error, text) = call(&client, "shapes", arguments).await;
        assert!(is_error, "{field}: {text}");
        assert!(text.starts_with("Invalid arguments: "), "{field}: {text}");
        assert!(
            text.contains(expected),
            "{field}: expected {expected:?} in {text:?}"
        );
    }

    let mut missing = valid_shapes();
    missing.as_object_mut().unwrap().remove("tree");
    let (is_error, text) = call(&client, "shapes", missing).await;
    assert!(is_error);
    assert_eq!(text, "Invalid arguments: missing required argument `tree`");

    let (is_error, text) = call(
        &client,
        "everything",
        json!({"color": "red", "shape": {"kind": "square", "side": 1.0},
               "tree": {"label": "t"}, "weights": {"a": [{"x": 1, "y": "two"}]}}),
    )
    .await;
    assert!(is_error);
    assert!(text.contains("at `weights.a[0].y`"), "{text}");

    // The server keeps serving after bad input.
    let (is_error, _) = call(&client, "shapes", valid_shapes()).await;
    assert!(!is_error);
}

#[tokio::test]
async fn prompt_parameters_of_any_shape_work() {
    let client = client().await;
    let listed = json_of(&client.list_prompts().await.unwrap());
    let arguments = &listed[0]["arguments"];
    assert_eq!(arguments[0]["name"], "color");
    assert_eq!(arguments[0]["required"], true);

    let ok = client.get_prompt("paint", json!({"color": "red"})).await;
    let text = &json_of(&ok.unwrap())["messages"][0]["content"]["text"];
    assert_eq!(text, "Paint it Red.");

    let bad = client.get_prompt("paint", json!({"color": "blue"})).await;
    let Err(ClientError::Server(error)) = bad else {
        panic!("not refused: {bad:?}")
    };
    assert_eq!(error.code.0, -32602, "{error:?}");
    let message = &error.message;
    assert!(
        message.contains("at `color`: unknown variant `blue`"),
        "{message}"
    );
}
