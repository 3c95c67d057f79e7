//! The bar chart of the comparison table: for each metric, each implementation's ratio to the
//! ceiling, on a logarithmic axis with the ceiling (1x) drawn as a line.
//!
//! Drawn with `plotters` into a PNG through its bitmap backend; text goes through `ab_glyph`
//! with a font bundled in a crate (`epaint_default_fonts`), so no system font is needed.

use std::path::Path;
use std::sync::Once;

use anyhow::anyhow;
use plotters::prelude::*;
use plotters::style::FontStyle;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One group of bars: a metric and each implementation's ratio to the ceiling (`None`: not
/// measured).
#[derive(Debug, Clone)]
pub struct Group {
    /// Short metric name, printed under the group.
    pub metric: String,
    /// Whether a higher ratio is better (throughput) or worse (cost).
    pub higher_is_better: bool,
    /// One ratio per implementation, in the order of the implementations.
    pub ratios: Vec<Option<f64>>,
}

/// The font family every plot of this crate draws with (registered by [`register_font`]).
pub(crate) const FONT: &str = "sans-serif";
const COLORS: [RGBColor; 5] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x94, 0x67, 0xbd),
];

/// Registers the bundled font under [`FONT`], once per process.
pub(crate) fn register_font() -> anyhow::Result<()> {
    static ONCE: Once = Once::new();
    let mut result = Ok(());
    ONCE.call_once(|| {
        result = plotters::style::register_font(
            FONT,
            FontStyle::Normal,
            epaint_default_fonts::UBUNTU_LIGHT,
        )
        .map_err(|_| anyhow!("the bundled font cannot be read"));
    });
    result
}

/// Draws `groups` (bars named by `implementations`) into the PNG at `path`.
pub fn draw(
    path: &Path,
    title: &str,
    implementations: &[String],
    groups: &[Group],
) -> anyhow::Result<()> {
    register_font()?;
    let values = groups.iter().flat_map(|g| g.ratios.iter().flatten());
    let (min, max) = values.fold((1.0_f64, 1.0_f64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let lo = 10_f64.powf((min.max(1e-4)).log10().floor());
    // A decade of headroom above the tallest bar, for the legend (upper left, above the
    // throughput groups, which stay below 1x).
    let hi = max.max(1.0) * 10.0;
    let width = 140 * u32::try_from(groups.len().max(4)).unwrap_or(16) + 120;
    let root = BitMapBackend::new(path, (width, 620)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, (FONT, 22))
        .margin(16)
        .x_label_area_size(56)
        .y_label_area_size(70)
        .build_cartesian_2d(0_f64..groups.len() as f64, (lo..hi).log_scale())
        .map_err(|e| anyhow!("{e}"))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc("ratio to the ceiling (log scale)")
        .y_label_formatter(&|v| format!("{v}x"))
        .label_style((FONT, 14))
        .draw()
        .map_err(|e| anyhow!("{e}"))?;
    let slots = implementations.len().max(1) as f64;
    for (j, name) in implementations.iter().enumerate() {
        let color = COLORS[j % COLORS.len()];
        let bars = groups.iter().enumerate().filter_map(|(i, group)| {
            let value = (*group.ratios.get(j)?)?;
            let x0 = i as f64 + 0.1 + 0.8 * j as f64 / slots;
            let x1 = x0 + 0.8 / slots;
            Some(Rectangle::new([(x0, lo), (x1, value)], color.filled()))
        });
        chart
            .draw_series(bars)
            .map_err(|e| anyhow!("{e}"))?
            .label(name.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 12, y + 6)], color.filled()));
    }
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(0.0, 1.0), (groups.len() as f64, 1.0)],
            BLACK.stroke_width(2),
        )))
        .map_err(|e| anyhow!("{e}"))?
        .label("ceiling (1x)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 12, y)], BLACK.stroke_width(2)));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font((FONT, 14))
        .draw()
        .map_err(|e| anyhow!("{e}"))?;
    let label = TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    for (i, group) in groups.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(i as f64 + 0.5, lo));
        let arrow = if group.higher_is_better {
            "(higher is better)"
        } else {
            "(lower is better)"
        };
        root.draw(&Text::new(group.metric.clone(), (x, y + 8), label.clone()))
            .map_err(|e| anyhow!("{e}"))?;
        root.draw(&Text::new(arrow, (x, y + 26), label.clone()))
            .map_err(|e| anyhow!("{e}"))?;
    }
    root.present().map_err(|e| anyhow!("{e}"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_a_png() -> anyhow::Result<()> {
        let dir = std::env::temp_dir().join(format!("mcp-bench-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let path = dir.join("ratios.png");
        let groups = vec![
            Group {
                metric: "HTTP req/s".into(),
                higher_is_better: true,
                ratios: vec![Some(0.6), None],
            },
            Group {
                metric: "CPU/call".into(),
                higher_is_better: false,
                ratios: vec![Some(1.7), Some(60.0)],
            },
        ];
        draw(&path, "test", &["ours".into(), "peer".into()], &groups)?;
        let bytes = std::fs::read(&path)?;
        assert!(bytes.starts_with(b"\x89PNG"), "not a PNG");
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    }
}
