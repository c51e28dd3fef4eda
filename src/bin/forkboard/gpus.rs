//! `--gpus`: which of the host's GPU adapters a command shares its work among.

use forkboard::gpu::{GpuContext, describe_adapter};

/// Reads `--gpus`: `all` (every adapter [`GpuContext::adapters`] lists) or adapter numbers such as `0,1`. A
/// number may repeat: each occurrence opens a device of its own (two devices on one software adapter is how
/// the tests share work between "GPUs" on a machine without any).
pub fn parse_gpus(text: &str) -> Result<Vec<usize>, String> {
    if text.trim() == "all" {
        let count = GpuContext::adapters().len();
        if count == 0 {
            return Err("--gpus all: this host has no GPU adapter".into());
        }
        return Ok((0..count).collect());
    }
    text.split(',')
        .map(|part| {
            part.trim().parse::<usize>().map_err(|_| {
                format!("--gpus takes `all` or adapter numbers such as 0,1; {part:?} is neither")
            })
        })
        .collect()
}

/// The preferred adapter, not opened yet, where auto may use it: a hardware one, or any with `software_too`
/// (tests). Otherwise why there is none to use, as a note says it. Telling what an adapter is costs a few
/// milliseconds; opening it and compiling kernels on it a few hundred, which a software one is not worth.
pub fn preferred_adapter_for_auto(software_too: bool) -> Result<wgpu::Adapter, String> {
    let adapter = GpuContext::preferred_adapter_blocking().map_err(|e| format!("no GPU: {e}"))?;
    let info = adapter.get_info();
    if info.device_type == wgpu::DeviceType::Cpu && !software_too {
        return Err(format!(
            "the only GPU adapter, {}, is a software one: the CPU engine is faster",
            describe_adapter(&info)
        ));
    }
    Ok(adapter)
}

/// One GPU's share of a shared run, for people: `NAME 52% (DETAIL)`, and why it failed if it did. `part` of
/// `whole` is its share of the work (nodes, puzzles).
pub fn describe_share(
    name: &str,
    part: u64,
    whole: u64,
    detail: &str,
    failed: Option<&str>,
) -> String {
    let share = 100.0 * part as f64 / whole.max(1) as f64;
    let failed = failed.map(|why| format!(", failed: {why}"));
    format!(
        "{name} {share:.0}% ({detail}){}",
        failed.unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::{describe_share, parse_gpus};

    #[test]
    fn a_share_names_its_gpu_part_and_failure() {
        assert_eq!(
            describe_share("A", 1, 4, "1.000 s", None),
            "A 25% (1.000 s)"
        );
        assert_eq!(
            describe_share("B", 0, 0, "0 puzzles", Some("lost")),
            "B 0% (0 puzzles), failed: lost"
        );
    }

    #[test]
    fn numbers_are_read_and_anything_else_is_named() {
        assert_eq!(parse_gpus("0,1"), Ok(vec![0, 1]));
        assert_eq!(parse_gpus(" 0 , 0 "), Ok(vec![0, 0]));
        let error = parse_gpus("0,x").unwrap_err();
        assert!(error.contains("\"x\""), "{error}");
        assert!(parse_gpus("").is_err());
    }
}
