//! Arguments mirrored into `Mcp-Param-*` headers: the annotation lands on each property, an
//! optional one is listed with its single type, and the tool registers.

use typemcp_server::{Server, tool};

/// Runs a query in a region.
#[tool]
async fn execute_sql(
    /// Where to run it.
    #[arg(header = "Region")]
    region: String,
    #[arg(header = "Shard")] shard: Option<u32>,
    #[arg(header = "Dry-Run")] r#dry: bool,
    query: String,
) -> String {
    format!("{region}{shard:?}{dry}{query}")
}

fn main() {
    let route = typemcp_server::IntoToolRoute::into_tool_route(execute_sql);
    let schema = &route.tool().input_schema;
    let properties = &schema["properties"];
    assert_eq!(properties["region"]["x-mcp-header"], "Region");
    assert_eq!(properties["region"]["description"], "Where to run it.");
    assert_eq!(properties["shard"]["x-mcp-header"], "Shard");
    assert_eq!(properties["shard"]["type"], "integer");
    assert_eq!(properties["dry"]["x-mcp-header"], "Dry-Run");
    assert!(properties["query"].get("x-mcp-header").is_none());
    Server::builder().tool(execute_sql).build().unwrap();
}
