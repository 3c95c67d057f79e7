//! Listed schemas carry only the `format` values JSON Schema 2020-12 defines: schemars' own
//! (`uint8`, `int64`, `double`, ...) make TypeScript clients print a warning per property, so
//! the server drops them from every generated input and output schema, keeping the numeric
//! bounds beside them and the standard formats (`email`, `uri`, ...).

#![allow(clippy::unwrap_used, clippy::expect_used)]
// Some fields exist only to be parsed.
#![allow(dead_code)]

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use typemcp_client::Client;
use typemcp_server::registry::STANDARD_FORMATS;
use typemcp_server::{Arguments, Json, Server, ToolInput, tool};

use crate::support::client::{connect, json_of};

/// Numbers of every width, in a definition of their own (`$defs`).
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Sizes {
    small: u8,
    medium: u16,
    large: u64,
    signed: i32,
    ratio: f32,
    /// A standard format, kept.
    #[schemars(email)]
    contact: String,
}

/// Numbers as named parameters, in an `Option`, a `Vec` and a nested struct.
#[tool]
async fn numbers(
    count: u8,
    total: i64,
    share: f64,
    limit: Option<u32>,
    ids: Vec<u64>,
    sizes: Sizes,
) -> Json<Sizes> {
    let _ = (count, total, share, limit, ids);
    Json(sizes)
}

/// The same numbers as one `Arguments<T>`.
#[derive(Debug, Deserialize, JsonSchema, ToolInput)]
struct Order {
    quantity: u16,
    price: f64,
    sizes: Option<Sizes>,
    /// A standard format, kept.
    #[schemars(url)]
    link: String,
}

/// Takes the numbers as one struct.
#[tool]
async fn order(Arguments(order): Arguments<Order>) -> Json<Vec<u32>> {
    Json(vec![u32::from(order.quantity)])
}

/// The tools `tools/list` lists, as JSON.
async fn tools_list() -> Value {
    let server = Server::builder().tool(numbers).tool(order).build();
    let client = connect(server.expect("builds"), Client::builder()).await;
    json_of(&client.list_tools().await.unwrap())
}

/// Every `format` string in `schema`, with its JSON pointer.
fn formats(schema: &Value, at: &str, found: &mut Vec<(String, String)>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                if let ("format", Value::String(format)) = (key.as_str(), value) {
                    found.push((at.to_owned(), format.clone()));
                }
                formats(value, &format!("{at}/{key}"), found);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                formats(item, &format!("{at}/{i}"), found);
            }
        }
        _ => {}
    }
}

fn tool<'a>(list: &'a Value, name: &str) -> &'a Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} is listed"))
}

#[tokio::test]
async fn no_listed_schema_has_a_non_standard_format() {
    let list = tools_list().await;
    let mut found = Vec::new();
    for name in ["numbers", "order"] {
        let tool = tool(&list, name);
        formats(
            &tool["inputSchema"],
            &format!("{name}/inputSchema"),
            &mut found,
        );
        formats(
            &tool["outputSchema"],
            &format!("{name}/outputSchema"),
            &mut found,
        );
    }
    let non_standard: Vec<_> = found
        .iter()
        .filter(|(_, format)| !STANDARD_FORMATS.contains(&format.as_str()))
        .collect();
    assert!(
        non_standard.is_empty(),
        "non-standard formats listed: {non_standard:?}"
    );
    // The standard ones stay, in the properties, the `$defs` and the output schema.
    let standard: Vec<_> = found.iter().map(|(at, f)| format!("{at} {f}")).collect();
    assert_eq!(
        standard,
        [
            "numbers/inputSchema/$defs/Sizes/properties/contact email",
            "numbers/outputSchema/properties/contact email",
            "order/inputSchema/$defs/Sizes/properties/contact email",
            "order/inputSchema/properties/link uri",
        ],
        "{list:#}"
    );
}

#[tokio::test]
async fn numeric_bounds_stay_where_formats_went() {
    let list = tools_list().await;
    let numbers = &tool(&list, "numbers")["inputSchema"];
    assert_eq!(
        numbers["properties"]["count"],
        json!({"type": "integer", "minimum": 0, "maximum": 255})
    );
    assert_eq!(numbers["properties"]["total"], json!({"type": "integer"}));
    assert_eq!(numbers["properties"]["share"], json!({"type": "number"}));
    assert_eq!(
        numbers["properties"]["limit"],
        json!({"type": ["integer", "null"], "minimum": 0})
    );
    assert_eq!(
        numbers["properties"]["ids"],
        json!({"type": "array", "items": {"type": "integer", "minimum": 0}})
    );
    assert_eq!(
        numbers["$defs"]["Sizes"]["properties"]["medium"],
        json!({"type": "integer", "minimum": 0, "maximum": 65535})
    );
    let output = &tool(&list, "numbers")["outputSchema"];
    assert_eq!(
        output["properties"]["large"],
        json!({"type": "integer", "minimum": 0}),
        "{output:#}"
    );
    assert_eq!(output["properties"]["ratio"], json!({"type": "number"}));
}
