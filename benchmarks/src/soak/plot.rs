//! The soak plot: each server's RSS, its open file descriptors (and the HTTP server's
//! threads), and the request rates, against time, with the end of the warm-up marked.
//!
//! Drawn with `plotters` into a PNG through its bitmap backend; text goes through `ab_glyph`
//! with a font bundled in a crate (`epaint_default_fonts`), so no system font is needed.

use std::path::Path;

use anyhow::anyhow;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::sample::Sample;
use crate::plot::{FONT, register_font};

const WIDTH: u32 = 900;
const HEIGHT: u32 = 780;

/// One line of a panel: its legend, its colour and its points.
type Line<'a> = (&'a str, RGBColor, Vec<(f64, f64)>);

/// One panel: a title, a unit, and its lines.
struct Panel<'a> {
    title: &'a str,
    unit: &'a str,
    lines: Vec<Line<'a>>,
}

/// Draws the samples into the PNG at `path`; `warmup_s` is marked with a vertical line.
pub fn draw(path: &Path, title: &str, samples: &[Sample], warmup_s: f64) -> anyhow::Result<()> {
    register_font()?;
    let series = |f: &dyn Fn(&Sample) -> f64| samples.iter().map(|s| (s.t, f(s))).collect();
    let rate = |f: &dyn Fn(&Sample) -> u64| -> Vec<(f64, f64)> {
        samples
            .windows(2)
            .map(|w| {
                let dt = (w[1].t - w[0].t).max(1e-3);
                (w[1].t, f(&w[1]).saturating_sub(f(&w[0])) as f64 / dt)
            })
            .collect()
    };
    let stdio = samples.iter().any(|s| s.stdio_rss_kib > 0);
    let (blue, red, green, purple, orange) = (
        RGBColor(0x1f, 0x77, 0xb4),
        RGBColor(0xd6, 0x27, 0x28),
        RGBColor(0x2c, 0xa0, 0x2c),
        RGBColor(0x94, 0x67, 0xbd),
        RGBColor(0xff, 0x7f, 0x0e),
    );
    let mut memory = vec![("HTTP server", blue, series(&|s| s.rss_kib as f64 / 1024.0))];
    let mut descriptors = vec![
        ("HTTP fds", red, series(&|s| s.fds as f64)),
        ("HTTP threads", green, series(&|s| s.threads as f64)),
    ];
    let mut requests = vec![("HTTP requests/s", purple, rate(&|s| s.requests))];
    if stdio {
        memory.push((
            "stdio server",
            orange,
            series(&|s| s.stdio_rss_kib as f64 / 1024.0),
        ));
        descriptors.push(("stdio fds", orange, series(&|s| s.stdio_fds as f64)));
        requests.push(("stdio lines/s", orange, rate(&|s| s.stdio_requests)));
    }
    let panels = [
        Panel {
            title: "Resident set (VmRSS)",
            unit: "MiB",
            lines: memory,
        },
        Panel {
            title: "Open file descriptors and threads",
            unit: "count",
            lines: descriptors,
        },
        Panel {
            title: "Requests per second (all kinds)",
            unit: "per s",
            lines: requests,
        },
    ];
    let t_max = samples.last().map_or(1.0, |s| s.t).max(1.0);
    let root = BitMapBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE).map_err(plot_error)?;
    let root = root.titled(title, (FONT, 20)).map_err(plot_error)?;
    let areas = root.split_evenly((panels.len(), 1));
    for (area, panel) in areas.iter().zip(&panels) {
        draw_panel(area, panel, t_max, warmup_s)?;
    }
    root.present().map_err(plot_error)?;
    Ok(())
}

fn draw_panel(
    area: &DrawingArea<BitMapBackend<'_>, Shift>,
    panel: &Panel<'_>,
    t_max: f64,
    warmup_s: f64,
) -> anyhow::Result<()> {
    let y_max = panel
        .lines
        .iter()
        .flat_map(|(_, _, points)| points.iter().map(|p| p.1))
        .fold(0.0_f64, f64::max);
    let y_max = if y_max > 0.0 { y_max * 1.15 } else { 1.0 };
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .caption(panel.title, (FONT, 16))
        .x_label_area_size(32)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..t_max, 0.0..y_max)
        .map_err(plot_error)?;
    chart
        .configure_mesh()
        .x_desc("time since the load started (s)")
        .y_desc(panel.unit)
        .label_style((FONT, 12))
        .axis_desc_style((FONT, 13))
        .light_line_style(WHITE)
        .bold_line_style(RGBColor(0xe4, 0xe4, 0xe4))
        .x_label_formatter(&|t| format!("{t:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()
        .map_err(plot_error)?;
    let grey = RGBColor(0x55, 0x55, 0x55);
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(warmup_s, 0.0), (warmup_s, y_max)],
            grey.stroke_width(2),
        )))
        .map_err(plot_error)?
        .label("end of warm-up")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], grey));
    for (name, color, points) in &panel.lines {
        let color = *color;
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(plot_error)?
            .label(*name)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .label_font((FONT, 12))
        .background_style(WHITE.mix(0.85))
        .border_style(grey)
        .draw()
        .map_err(plot_error)?;
    Ok(())
}

fn plot_error(error: impl std::fmt::Display) -> anyhow::Error {
    anyhow!("drawing the plot: {error}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_a_png_with_the_shared_font() -> anyhow::Result<()> {
        let dir = std::env::temp_dir().join(format!("mcp-soak-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let path = dir.join("soak.png");
        let samples: Vec<Sample> = (0..30_u64)
            .map(|i| Sample {
                t: i as f64,
                rss_kib: 11_000 + i,
                fds: 28,
                threads: 3,
                requests: i * 1_000,
                failures: 0,
                stdio_rss_kib: 5_000,
                stdio_fds: 6,
                stdio_threads: 4,
                stdio_requests: i * 500,
                stdio_failures: 0,
            })
            .collect();
        draw(&path, "test", &samples, 6.0)?;
        let bytes = std::fs::read(&path)?;
        assert!(bytes.starts_with(b"\x89PNG"), "not a PNG");
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    }
}
