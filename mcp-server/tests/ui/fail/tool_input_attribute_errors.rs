//! `#[tool_input]` accepts `crate = path` only; the derive's errors do not cascade into the
//! tool that takes the type.

use typemcp_server::{Arguments, ToolInput, tool};

#[derive(serde::Deserialize, schemars::JsonSchema, ToolInput)]
#[tool_input(crat = typemcp_server)]
#[tool_input]
struct Add {
    a: i64,
    b: i64,
}

#[derive(serde::Deserialize, schemars::JsonSchema, ToolInput)]
enum Shape {
    Circle { radius: f64 },
}

#[tool]
async fn add(Arguments(Add { a, b }): Arguments<Add>) -> i64 {
    a + b
}

#[tool]
async fn area(Arguments(shape): Arguments<Shape>) -> f64 {
    match shape {
        Shape::Circle { radius } => radius * radius * 3.14,
    }
}

fn main() {}
