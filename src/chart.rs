//! Line charts for the CPU/GPU comparison, as plain data: the web app draws a [`Plot`] with SVG elements, the
//! CLI writes it as an SVG file ([`Plot::to_svg`]). Axes may be logarithmic (batch sizes from 1 to 100,000,
//! rates over several decades); the point where one series overtakes another is found by [`crossover`].

use std::fmt::Write;

/// One line: a name and its (x, y) points, x increasing.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Shown in the legend.
    pub name: String,
    /// The points; on a log axis, values ≤ 0 are left out.
    pub points: Vec<(f64, f64)>,
}

/// What to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    /// Above the plot.
    pub title: String,
    /// Under the x axis.
    pub x_label: String,
    /// Beside the y axis.
    pub y_label: String,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// Logarithmic y axis.
    pub log_y: bool,
    /// The lines.
    pub series: Vec<Series>,
    /// A vertical marker and its label (the crossover), if any.
    pub marker: Option<(f64, String)>,
}

/// A line placed in the plot: its path, its points in plot coordinates, and the data behind them.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacedSeries {
    /// The series' name.
    pub name: String,
    /// Its index (the app and the SVG colour lines by index: `series-0`, `series-1`, …).
    pub index: usize,
    /// SVG path data (`M x y L x y …`).
    pub path: String,
    /// Each point: plot x, plot y, data x, data y.
    pub points: Vec<(f64, f64, f64, f64)>,
}

/// A chart laid out on a `width` × `height` canvas.
#[derive(Clone, Debug, PartialEq)]
pub struct Plot {
    /// Canvas size.
    pub width: f64,
    /// Canvas size.
    pub height: f64,
    /// The chart it draws.
    pub chart: Chart,
    /// The plotting area: left, top, right, bottom.
    pub area: (f64, f64, f64, f64),
    /// The lines.
    pub series: Vec<PlacedSeries>,
    /// X ticks: position and label.
    pub x_ticks: Vec<(f64, String)>,
    /// Y ticks: position and label.
    pub y_ticks: Vec<(f64, String)>,
    /// The marker's x position and label.
    pub marker: Option<(f64, String)>,
}

/// One axis's mapping from data to canvas.
#[derive(Clone, Copy, Debug)]
struct Axis {
    log: bool,
    low: f64,
    high: f64,
    from: f64,
    to: f64,
}

impl Axis {
    fn new(values: impl Iterator<Item = f64>, log: bool, from: f64, to: f64) -> Self {
        let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in values.filter(|v| v.is_finite() && (!log || *v > 0.0)) {
            low = low.min(v);
            high = high.max(v);
        }
        if !low.is_finite() {
            (low, high) = (1.0, 10.0);
        }
        if log {
            // Whole decades, so the ticks are 1, 10, 100, …
            low = 10f64.powf(low.log10().floor());
            high = 10f64.powf(high.log10().ceil());
            if high <= low {
                high = low * 10.0;
            }
        } else {
            // Positive data that starts low reads better from zero.
            if low > 0.0 && low < high / 3.0 {
                low = 0.0;
            }
            if high <= low {
                high = low + 1.0;
            }
        }
        Self {
            log,
            low,
            high,
            from,
            to,
        }
    }

    fn scale(&self, v: f64) -> f64 {
        let t = if self.log {
            (v.log10() - self.low.log10()) / (self.high.log10() - self.low.log10())
        } else {
            (v - self.low) / (self.high - self.low)
        };
        self.from + t * (self.to - self.from)
    }

    fn ticks(&self) -> Vec<(f64, String)> {
        if self.log {
            let (a, b) = (
                self.low.log10().round() as i32,
                self.high.log10().round() as i32,
            );
            // At most about eight labels: every decade, or every other one on wide ranges.
            let step = ((b - a) / 8 + 1).max(1) as usize;
            (a..=b)
                .step_by(step)
                .map(|e| {
                    let v = 10f64.powi(e);
                    (self.scale(v), number(v))
                })
                .collect()
        } else {
            let span = self.high - self.low;
            let raw = span / 5.0;
            let magnitude = 10f64.powf(raw.log10().floor());
            let mut step = [1.0, 2.0, 5.0, 10.0]
                .into_iter()
                .map(|m| m * magnitude)
                .find(|s| span / s <= 6.0)
                .unwrap_or(magnitude * 10.0);
            // Whole-number data (N, say) gets whole-number ticks.
            if step < 1.0 && span >= 2.0 && self.low.fract() == 0.0 && self.high.fract() == 0.0 {
                step = 1.0;
            }
            let mut out = Vec::new();
            let mut v = (self.low / step).ceil() * step;
            while v <= self.high + step * 1e-9 {
                out.push((self.scale(v), number(v)));
                v += step;
            }
            out
        }
    }
}

/// A short label: 1, 10, 100, 1k, 10k, 1M, 0.01, 2.5.
pub fn number(v: f64) -> String {
    let abs = v.abs();
    let (scaled, suffix) = match abs {
        a if a >= 1e9 => (v / 1e9, "G"),
        a if a >= 1e6 => (v / 1e6, "M"),
        a if a >= 1e3 => (v / 1e3, "k"),
        _ => (v, ""),
    };
    let text = if scaled == scaled.round() || scaled.abs() >= 10.0 {
        format!("{scaled:.0}")
    } else if scaled.abs() < 0.001 {
        format!("{scaled:.0e}")
    } else if scaled.abs() >= 0.1 {
        format!("{scaled:.1}")
    } else {
        format!("{scaled:.3}")
    };
    format!("{text}{suffix}")
}

impl Chart {
    /// Lays the chart out on a `width` × `height` canvas.
    pub fn plot(&self, width: f64, height: f64) -> Plot {
        let area = (64.0, 50.0, width - 20.0, height - 48.0);
        let xs = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0));
        let ys = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1));
        let x = Axis::new(xs, self.log_x, area.0, area.2);
        let y = Axis::new(ys, self.log_y, area.3, area.1);
        let series = self
            .series
            .iter()
            .enumerate()
            .map(|(index, s)| {
                let points: Vec<(f64, f64, f64, f64)> = s
                    .points
                    .iter()
                    .filter(|(px, py)| {
                        px.is_finite()
                            && py.is_finite()
                            && (!self.log_x || *px > 0.0)
                            && (!self.log_y || *py > 0.0)
                    })
                    .map(|&(px, py)| (x.scale(px), y.scale(py), px, py))
                    .collect();
                let mut path = String::new();
                for (i, (cx, cy, _, _)) in points.iter().enumerate() {
                    let _ = write!(path, "{}{cx:.1} {cy:.1} ", if i == 0 { "M" } else { "L" });
                }
                PlacedSeries {
                    name: s.name.clone(),
                    index,
                    path: path.trim_end().to_string(),
                    points,
                }
            })
            .collect();
        let marker = self
            .marker
            .as_ref()
            .filter(|(at, _)| at.is_finite() && (!self.log_x || *at > 0.0))
            .map(|(at, label)| (x.scale(*at), label.clone()));
        Plot {
            width,
            height,
            chart: self.clone(),
            area,
            series,
            x_ticks: x.ticks(),
            y_ticks: y.ticks(),
            marker,
        }
    }
}

/// Colours of the series in the standalone SVG (the web app takes them from its stylesheet).
const COLOURS: [&str; 4] = ["#1f5f8b", "#c2571a", "#2e7d32", "#8e24aa"];

impl Plot {
    /// Where series `index`'s legend entry goes: a row between the title and the plot, right-aligned.
    pub fn legend_at(&self, index: usize) -> (f64, f64) {
        let from_right = (self.series.len() - index) as f64;
        (self.area.2 - 140.0 * from_right, 40.0)
    }

    /// The plot as a standalone SVG document (for files and docs).
    pub fn to_svg(&self) -> String {
        let (l, t, r, b) = self.area;
        let mut svg = String::new();
        let _ = write!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"#,
            w = self.width,
            h = self.height
        );
        svg.push_str(r##"<rect width="100%" height="100%" fill="#fff"/>"##);
        let _ = write!(
            svg,
            r#"<text x="{}" y="20" font-size="14" font-weight="bold">{}</text>"#,
            l,
            escape(&self.chart.title)
        );
        for (x, label) in &self.x_ticks {
            let _ = write!(
                svg,
                r##"<line x1="{x:.1}" y1="{t}" x2="{x:.1}" y2="{b}" stroke="#ddd"/><text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"##,
                b + 16.0,
                escape(label)
            );
        }
        for (y, label) in &self.y_ticks {
            let _ = write!(
                svg,
                r##"<line x1="{l}" y1="{y:.1}" x2="{r}" y2="{y:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
                l - 6.0,
                y + 4.0,
                escape(label)
            );
        }
        let _ = write!(
            svg,
            r##"<rect x="{l}" y="{t}" width="{}" height="{}" fill="none" stroke="#555"/>"##,
            r - l,
            b - t
        );
        let _ = write!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            (l + r) / 2.0,
            self.height - 8.0,
            escape(&self.chart.x_label)
        );
        let _ = write!(
            svg,
            r#"<text transform="translate(14 {}) rotate(-90)" text-anchor="middle">{}</text>"#,
            (t + b) / 2.0,
            escape(&self.chart.y_label)
        );
        if let Some((x, label)) = &self.marker {
            let _ = write!(
                svg,
                r##"<line x1="{x:.1}" y1="{t}" x2="{x:.1}" y2="{b}" stroke="#888" stroke-dasharray="4 3"/><text x="{:.1}" y="{}">{}</text>"##,
                x + 4.0,
                t + 14.0,
                escape(label)
            );
        }
        for s in &self.series {
            let colour = COLOURS[s.index % COLOURS.len()];
            let _ = write!(
                svg,
                r#"<path d="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#,
                s.path
            );
            for (x, y, _, _) in &s.points {
                let _ = write!(
                    svg,
                    r#"<circle cx="{x:.1}" cy="{y:.1}" r="3" fill="{colour}"/>"#
                );
            }
            let (x, y) = self.legend_at(s.index);
            let _ = write!(
                svg,
                r#"<text x="{x}" y="{y}" fill="{colour}">● {}</text>"#,
                escape(&s.name)
            );
        }
        svg.push_str("</svg>\n");
        svg
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Where `faster` overtakes `slower` for good (both sampled at increasing x, higher y is better): the crossing
/// x, interpolated on log axes between the last sample where it is behind and the next, where it is ahead.
/// `None` when it is behind at the last sample; the first x when it never falls behind. A lead at a small x
/// followed by a loss does not count: a batch of one puzzle can look faster on either engine by chance (a
/// worker's or a device's first job), and Auto must not send every batch to the GPU on that evidence.
pub fn crossover(slower: &Series, faster: &Series) -> Option<f64> {
    let at = |s: &Series, x: f64| s.points.iter().find(|p| p.0 == x).map(|p| p.1);
    // (x, log of faster / slower) where both have a usable sample.
    let ratios: Vec<(f64, f64)> = faster
        .points
        .iter()
        .filter_map(|&(x, y_fast)| {
            let y_slow = at(slower, x)?;
            (y_fast > 0.0 && y_slow > 0.0).then(|| (x, (y_fast / y_slow).ln()))
        })
        .collect();
    let (_, last) = *ratios.last()?;
    if last < 0.0 {
        return None;
    }
    match ratios.iter().rposition(|&(_, r)| r < 0.0) {
        None => Some(ratios[0].0),
        Some(i) => {
            let ((x0, r0), (x1, r1)) = (ratios[i], ratios[i + 1]);
            // The ratio's sign change, linear in log x.
            let t = -r0 / (r1 - r0);
            Some((x0.ln() + t * (x1.ln() - x0.ln())).exp())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(name: &str, points: &[(f64, f64)]) -> Series {
        Series {
            name: name.into(),
            points: points.to_vec(),
        }
    }

    #[test]
    fn the_crossover_is_interpolated_on_log_axes() {
        let cpu = series("CPU", &[(1.0, 1000.0), (100.0, 1000.0), (10000.0, 1000.0)]);
        let gpu = series(
            "GPU",
            &[(1.0, 100.0), (100.0, 10000.0), (10000.0, 100000.0)],
        );
        // GPU/CPU goes 0.1 → 10 between x = 1 and x = 100: level at x = 10.
        let at = crossover(&cpu, &gpu).unwrap();
        assert!((at - 10.0).abs() < 1e-9, "{at}");
        let ahead = series("fast", &[(1.0, 2000.0), (100.0, 1500.0), (10000.0, 1001.0)]);
        assert_eq!(crossover(&cpu, &ahead), Some(1.0), "leads from the start");
        assert_eq!(
            crossover(&gpu, &cpu),
            None,
            "ahead at first, behind at the end"
        );
        let never = series("slow", &[(1.0, 1.0), (100.0, 1.0)]);
        assert_eq!(crossover(&cpu, &never), None);
    }

    #[test]
    fn an_early_lead_that_is_lost_again_is_not_the_crossover() {
        // As measured in Chromium on an H100 (easy puzzles): the GPU ahead at a batch of 1 (the CPU worker's
        // first job), behind at 100 and 1,000, ahead from 10,000 on.
        let cpu = series(
            "CPU",
            &[
                (1.0, 21.0),
                (100.0, 52_632.0),
                (1e3, 285_714.0),
                (1e4, 574_713.0),
            ],
        );
        let gpu = series(
            "GPU",
            &[
                (1.0, 154.0),
                (100.0, 7_353.0),
                (1e3, 185_185.0),
                (1e4, 757_576.0),
            ],
        );
        let at = crossover(&cpu, &gpu).unwrap();
        assert!(at > 1e3 && at < 1e4, "{at}");
        // Ahead early, behind at the end: never overtaken for good.
        let late = series(
            "GPU",
            &[
                (1.0, 154.0),
                (100.0, 60_000.0),
                (1e3, 185_185.0),
                (1e4, 500_000.0),
            ],
        );
        assert_eq!(crossover(&cpu, &late), None);
    }

    #[test]
    fn points_land_inside_the_plot_and_ticks_are_decades() {
        let chart = Chart {
            title: "rate".into(),
            x_label: "batch".into(),
            y_label: "puzzles/s".into(),
            log_x: true,
            log_y: true,
            series: vec![series("CPU", &[(1.0, 900.0), (1000.0, 50000.0)])],
            marker: Some((30.0, "crossover".into())),
        };
        let plot = chart.plot(600.0, 300.0);
        let (l, t, r, b) = plot.area;
        for &(x, y, _, _) in &plot.series[0].points {
            assert!(x >= l && x <= r && y >= t && y <= b, "({x}, {y})");
        }
        let labels: Vec<&str> = plot.x_ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["1", "10", "100", "1k"]);
        assert_eq!(plot.y_ticks.first().unwrap().1, "100");
        assert_eq!(plot.y_ticks.last().unwrap().1, "100k");
        let marker = plot.marker.as_ref().unwrap().0;
        assert!(marker > plot.series[0].points[0].0 && marker < plot.series[0].points[1].0);
        let svg = plot.to_svg();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<circle").count(), 2);
    }

    #[test]
    fn labels_are_short_and_text_is_escaped() {
        assert_eq!(number(1.0), "1");
        assert_eq!(number(12_000.0), "12k");
        assert_eq!(number(2_500_000.0), "2.5M");
        assert_eq!(number(0.5), "0.5");
        assert_eq!(number(0.004), "0.004");
        assert_eq!(number(0.0001), "1e-4");
        assert_eq!(escape("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
    }

    #[test]
    fn linear_axes_start_at_zero_for_positive_data() {
        let chart = Chart {
            title: String::new(),
            x_label: String::new(),
            y_label: String::new(),
            log_x: false,
            log_y: false,
            series: vec![series("a", &[(8.0, 0.5), (12.0, 3.0)])],
            marker: None,
        };
        let plot = chart.plot(400.0, 200.0);
        assert_eq!(plot.y_ticks[0].1, "0");
        let x: Vec<&str> = plot.x_ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(x, ["8", "9", "10", "11", "12"], "whole numbers only");
    }
}
