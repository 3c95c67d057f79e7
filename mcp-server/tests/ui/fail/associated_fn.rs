use typemcp_server::tool;

struct Calculator;

impl Calculator {
    /// Adds two numbers.
    #[tool]
    async fn add(a: i64, b: i64) -> i64 {
        a + b
    }
}

fn main() {}
