use typemcp_server::tool;

struct Counter {
    count: u64,
}

impl Counter {
    /// Reads the counter.
    #[tool]
    async fn read(&self) -> u64 {
        self.count
    }
}

fn main() {}
