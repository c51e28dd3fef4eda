//! Draws a [`Plot`] (from `crate::chart`) as SVG elements, coloured by the stylesheet so both themes read well.
//! Every point carries its data (`data-series`, `data-x`, `data-y`) and a tooltip, so the numbers behind the
//! picture can be read and tested.

use leptos::prelude::*;

use crate::chart::{Plot, number};

/// One chart.
#[component]
pub fn ChartView(plot: Plot, test_id: &'static str) -> impl IntoView {
    let (l, t, r, b) = plot.area;
    let title = plot.chart.title.clone();
    let label = title.clone();
    let x_label = plot.chart.x_label.clone();
    let y_label = plot.chart.y_label.clone();
    let x_ticks = plot
        .x_ticks
        .iter()
        .map(|(x, label)| {
            view! {
                <line class="grid-line" x1=*x y1=t x2=*x y2=b />
                <text class="tick" x=*x y=b + 16.0 text-anchor="middle">{label.clone()}</text>
            }
        })
        .collect_view();
    let y_ticks = plot
        .y_ticks
        .iter()
        .map(|(y, label)| {
            view! {
                <line class="grid-line" x1=l y1=*y x2=r y2=*y />
                <text class="tick" x=l - 6.0 y=*y + 4.0 text-anchor="end">{label.clone()}</text>
            }
        })
        .collect_view();
    let marker = plot.marker.clone().map(|(x, label)| {
        view! {
            <line class="marker" x1=x y1=t x2=x y2=b data-testid=format!("{test_id}-marker") />
            <text class="marker-label" x=x + 4.0 y=t + 14.0>{label}</text>
        }
    });
    let lines = plot
        .series
        .iter()
        .map(|s| {
            let class = format!("series series-{}", s.index);
            let legend = plot.legend_at(s.index);
            let name = s.name.clone();
            let points = s
                .points
                .iter()
                .map(|&(x, y, dx, dy)| {
                    let tip = format!("{name}: {} → {}", number(dx), number(dy));
                    view! {
                        <circle class=class.clone() cx=x cy=y r="3.5" data-series=name.clone() data-x=dx data-y=dy>
                            <title>{tip}</title>
                        </circle>
                    }
                })
                .collect_view();
            view! {
                <path class=class.clone() d=s.path.clone() fill="none" />
                {points}
                <text class=format!("legend {class}") x=legend.0 y=legend.1>{format!("● {}", s.name)}</text>
            }
        })
        .collect_view();
    view! {
        <figure class="chart">
            <svg
                data-testid=test_id
                viewBox=format!("0 0 {} {}", plot.width, plot.height)
                role="img"
                aria-label=label
            >
                <text class="chart-title" x=l y="20">{title}</text>
                {x_ticks}
                {y_ticks}
                <rect class="frame" x=l y=t width=r - l height=b - t fill="none" />
                <text class="axis-label" x=(l + r) / 2.0 y=plot.height - 8.0 text-anchor="middle">{x_label}</text>
                <text
                    class="axis-label"
                    transform=format!("translate(14 {}) rotate(-90)", (t + b) / 2.0)
                    text-anchor="middle"
                >
                    {y_label}
                </text>
                {marker}
                {lines}
            </svg>
        </figure>
    }
}
