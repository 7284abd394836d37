//! Plots as PNG or SVG (by the file's extension), drawn with plotters. Text is set in the
//! DejaVu Sans font compiled into the program, so no system font is needed.

use std::path::Path;
use std::sync::Once;

use plotters::prelude::*;
use plotters::style::FontStyle;

use crate::ReportError;

/// The family name plots ask for; registered once with the embedded font.
const FONT: &str = "sans-serif";

fn register_font() {
    static REGISTERED: Once = Once::new();
    REGISTERED.call_once(|| {
        for style in [FontStyle::Normal, FontStyle::Bold] {
            plotters::style::register_font(FONT, style, dejavu::sans::regular())
                .unwrap_or_else(|_| panic!("the embedded DejaVu Sans is a valid font"));
        }
    });
}

const SIZE: (u32, u32) = (900, 560);

/// One named line.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Its name in the legend.
    pub label: String,
    /// (x, y) points in x order.
    pub points: Vec<(f64, f64)>,
}

/// A plot of lines against one x axis.
#[derive(Clone, Debug, PartialEq)]
pub struct LinePlot {
    /// The title.
    pub title: String,
    /// The x axis's name.
    pub x_label: String,
    /// The y axis's name.
    pub y_label: String,
    /// The lines.
    pub series: Vec<Series>,
    /// Fixed y range; from the data when `None`.
    pub y_range: Option<(f64, f64)>,
}

/// Runs `$body` on a drawing area `$area` of the file's kind, PNG or SVG.
macro_rules! on_file {
    ($path:expr, |$area:ident| $body:block) => {{
        register_font();
        let path: &Path = $path;
        let failed = |error: String| ReportError::Plot {
            path: path.display().to_string(),
            reason: error,
        };
        match path.extension().and_then(|e| e.to_str()) {
            Some("png") => {
                let $area = BitMapBackend::new(path, SIZE).into_drawing_area();
                let drawn: Result<(), String> = $body;
                drawn.map_err(failed)?;
                $area.present().map_err(|e| failed(e.to_string()))
            }
            Some("svg") => {
                let $area = SVGBackend::new(path, SIZE).into_drawing_area();
                let drawn: Result<(), String> = $body;
                drawn.map_err(failed)?;
                $area.present().map_err(|e| failed(e.to_string()))
            }
            _ => Err(failed("use a .png or .svg file name".to_owned())),
        }
    }};
}

fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (low, high) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
        (l.min(v), h.max(v))
    });
    if !low.is_finite() {
        return (0.0, 1.0);
    }
    if high - low < 1e-9 {
        return (low - 0.5, high + 0.5);
    }
    let pad = (high - low) * 0.05;
    (low - pad, high + pad)
}

/// Draws a line plot.
///
/// # Errors
/// A file name that is neither .png nor .svg, or a file that cannot be written.
pub fn line_plot(path: &Path, plot: &LinePlot) -> Result<(), ReportError> {
    let xs = range(
        plot.series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0)),
    );
    let ys = plot.y_range.unwrap_or_else(|| {
        range(
            plot.series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.1)),
        )
    });
    on_file!(path, |area| {
        (|| -> Result<(), Box<dyn std::error::Error + '_>> {
            area.fill(&WHITE)?;
            let mut chart = ChartBuilder::on(&area)
                .caption(&plot.title, (FONT, 24))
                .margin(16)
                .x_label_area_size(48)
                .y_label_area_size(64)
                .build_cartesian_2d(xs.0..xs.1, ys.0..ys.1)?;
            chart
                .configure_mesh()
                .x_desc(plot.x_label.as_str())
                .y_desc(plot.y_label.as_str())
                .label_style((FONT, 15))
                .draw()?;
            for (index, series) in plot.series.iter().enumerate() {
                let colour = Palette99::pick(index).to_rgba();
                chart
                    .draw_series(LineSeries::new(
                        series.points.iter().copied(),
                        colour.stroke_width(2),
                    ))?
                    .label(series.label.as_str())
                    .legend(move |(x, y)| {
                        PathElement::new([(x, y), (x + 18, y)], colour.stroke_width(2))
                    });
                chart.draw_series(
                    series
                        .points
                        .iter()
                        .map(|&point| Circle::new(point, 3, colour.filled())),
                )?;
            }
            if plot.series.len() > 1 {
                chart
                    .configure_series_labels()
                    .position(SeriesLabelPosition::LowerRight)
                    .background_style(WHITE.mix(0.85))
                    .border_style(BLACK)
                    .label_font((FONT, 15))
                    .draw()?;
            }
            Ok(())
        })()
        .map_err(|e| e.to_string())
    })
}

/// Draws a histogram of `values` in bins of width `bin`.
///
/// # Errors
/// As [`line_plot`].
pub fn histogram(
    path: &Path,
    title: &str,
    x_label: &str,
    values: &[f64],
    bin: f64,
) -> Result<(), ReportError> {
    let (low, high) = range(values.iter().copied());
    let first = (low / bin).floor() as i64;
    let last = (high / bin).ceil() as i64;
    let mut counts = vec![0u32; (last - first + 1).max(1) as usize];
    for value in values {
        let index = ((value / bin).floor() as i64 - first).clamp(0, counts.len() as i64 - 1);
        counts[index as usize] += 1;
    }
    let most = counts.iter().copied().max().unwrap_or(1).max(1);
    on_file!(path, |area| {
        (|| -> Result<(), Box<dyn std::error::Error + '_>> {
            area.fill(&WHITE)?;
            let mut chart = ChartBuilder::on(&area)
                .caption(title, (FONT, 24))
                .margin(16)
                .x_label_area_size(48)
                .y_label_area_size(64)
                .build_cartesian_2d(
                    (first as f64 * bin)..((last + 1) as f64 * bin),
                    0.0..(f64::from(most) * 1.1),
                )?;
            chart
                .configure_mesh()
                .x_desc(x_label)
                .y_desc("games")
                .label_style((FONT, 15))
                .draw()?;
            chart.draw_series(counts.iter().enumerate().map(|(index, &count)| {
                let left = (first + index as i64) as f64 * bin;
                Rectangle::new(
                    [(left, 0.0), (left + bin, f64::from(count))],
                    Palette99::pick(0).filled(),
                )
            }))?;
            Ok(())
        })()
        .map_err(|e| e.to_string())
    })
}

/// Draws a matrix of shares (0 to 1; `None` where nothing was played) as coloured cells with
/// their percentages: row player's score against the column player.
///
/// # Errors
/// As [`line_plot`].
pub fn matrix(
    path: &Path,
    title: &str,
    labels: &[String],
    values: &[Vec<Option<f64>>],
) -> Result<(), ReportError> {
    let count = labels.len().max(1);
    on_file!(path, |area| {
        (|| -> Result<(), Box<dyn std::error::Error + '_>> {
            area.fill(&WHITE)?;
            let (caption, body) = area.split_vertically(50);
            caption.titled(title, (FONT, 24))?;
            let (names, grid) = body.split_horizontally(220);
            let cell_height = (SIZE.1 - 70) / count as u32;
            let cell_width = (SIZE.0 - 240) / count as u32;
            for (row, label) in labels.iter().enumerate() {
                names.draw_text(
                    label,
                    &(FONT, 14).into_text_style(&names),
                    (4, row as i32 * cell_height as i32 + cell_height as i32 / 2),
                )?;
                for (column, value) in values[row].iter().enumerate() {
                    let x = column as i32 * cell_width as i32;
                    let y = row as i32 * cell_height as i32;
                    let colour = match value {
                        Some(share) => RGBColor(
                            (255.0 * (1.0 - share)) as u8,
                            (200.0 * share + 55.0) as u8,
                            90,
                        ),
                        None => RGBColor(230, 230, 230),
                    };
                    grid.draw(&Rectangle::new(
                        [
                            (x, y),
                            (x + cell_width as i32 - 2, y + cell_height as i32 - 2),
                        ],
                        colour.filled(),
                    ))?;
                    if let Some(share) = value {
                        grid.draw_text(
                            &format!("{:.0}%", share * 100.0),
                            &(FONT, 14).into_text_style(&grid),
                            (x + cell_width as i32 / 3, y + cell_height as i32 / 2),
                        )?;
                    }
                }
            }
            Ok(())
        })()
        .map_err(|e| e.to_string())
    })
}

/// Named horizontal bars, one per row, with optional 95% margins drawn as whiskers.
#[derive(Clone, Debug, PartialEq)]
pub struct BarChart {
    /// The title.
    pub title: String,
    /// The value axis's name.
    pub value_label: String,
    /// (name, value, margin) per bar, top to bottom.
    pub bars: Vec<(String, f64, Option<f64>)>,
}

/// Draws a bar chart.
///
/// # Errors
/// As [`line_plot`].
pub fn bar_chart(path: &Path, chart: &BarChart) -> Result<(), ReportError> {
    let count = chart.bars.len().max(1);
    let ends = chart.bars.iter().flat_map(|(_, value, margin)| {
        let margin = margin.unwrap_or(0.0);
        [0.0, value - margin, value + margin]
    });
    let (low, high) = range(ends);
    on_file!(path, |area| {
        (|| -> Result<(), Box<dyn std::error::Error + '_>> {
            area.fill(&WHITE)?;
            let mut plot = ChartBuilder::on(&area)
                .caption(&chart.title, (FONT, 22))
                .margin(16)
                .x_label_area_size(44)
                .y_label_area_size(170)
                // A segmented range of n values spans n + 1 segments: stop one short.
                .build_cartesian_2d(low..high, (0..count - 1).into_segmented())?;
            let names: Vec<&str> = chart.bars.iter().map(|bar| bar.0.as_str()).collect();
            plot.configure_mesh()
                .x_desc(chart.value_label.as_str())
                .y_labels(count)
                .y_label_formatter(&|row| match row {
                    SegmentValue::CenterOf(index) => names
                        .get(count - 1 - index)
                        .map_or(String::new(), |name| (*name).to_owned()),
                    _ => String::new(),
                })
                .disable_y_mesh()
                .label_style((FONT, 14))
                .draw()?;
            // Row 0 is drawn at the bottom: the first bar goes to the top row.
            let row = |index: usize| count - 1 - index;
            plot.draw_series(chart.bars.iter().enumerate().map(|(index, (_, value, _))| {
                let mut bar = Rectangle::new(
                    [
                        (0.0, SegmentValue::Exact(row(index))),
                        (*value, SegmentValue::Exact(row(index) + 1)),
                    ],
                    Palette99::pick(0).filled(),
                );
                bar.set_margin(4, 4, 0, 0);
                bar
            }))?;
            plot.draw_series(chart.bars.iter().enumerate().filter_map(
                |(index, (_, value, margin))| {
                    margin.map(|margin| {
                        PathElement::new(
                            vec![
                                (value - margin, SegmentValue::CenterOf(row(index))),
                                (value + margin, SegmentValue::CenterOf(row(index))),
                            ],
                            BLACK.stroke_width(2),
                        )
                    })
                },
            ))?;
            Ok(())
        })()
        .map_err(|e| e.to_string())
    })
}
