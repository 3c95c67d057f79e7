use typemcp_server::{ElicitForm, FormChoice};

/// Every mistake in `#[choice]` and `#[serde]` is reported in one build.
#[derive(FormChoice)]
#[choice(title = "Regions")]
#[serde(rename_all = "kebab")]
enum Region {
    #[choice(title = "Europe", title = "EU")]
    EuCentral,
    #[choice(crate = ::typemcp_server)]
    #[serde(rename = 3)]
    UsEast,
    #[choice(title = 7, label = "Asia")]
    ApSouth,
}

#[derive(ElicitForm)]
struct Deploy {
    // The enum still implements `FormChoice` and `FieldValue`: no error here.
    region: Region,
}

fn main() {}
