//! `--gpus`: which of the host's GPU adapters a command shares its work among.

use forkboard::gpu::GpuContext;

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

#[cfg(test)]
mod tests {
    use super::parse_gpus;

    #[test]
    fn numbers_are_read_and_anything_else_is_named() {
        assert_eq!(parse_gpus("0,1"), Ok(vec![0, 1]));
        assert_eq!(parse_gpus(" 0 , 0 "), Ok(vec![0, 0]));
        let error = parse_gpus("0,x").unwrap_err();
        assert!(error.contains("\"x\""), "{error}");
        assert!(parse_gpus("").is_err());
    }
}
