use typemcp_server::tool;

struct Db;

#[tool]
async fn query(sql: String, db: Db) -> String {
    let _ = db;
    sql
}

fn main() {}
