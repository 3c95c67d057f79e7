use typemcp_server::Server;

/// An ordinary function, not annotated.
async fn lookup(id: u32) -> String {
    id.to_string()
}

fn main() {
    let _ = Server::builder().tool(42);
    let _ = Server::builder().prompt("hello");
    let _ = Server::builder().resource(lookup);
}
