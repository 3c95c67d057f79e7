use typemcp_server::ToolInput;

#[derive(serde::Deserialize, schemars::JsonSchema, ToolInput)]
enum Shape {
    Circle { radius: f64 },
    Square { side: f64 },
}

fn main() {}
