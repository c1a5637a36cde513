# Installs the prebuilt mcpick for Windows (x86_64) from a GitHub release:
#   powershell -ExecutionPolicy Bypass -c "irm https://github.com/mcpick/mcpick/releases/latest/download/mcpick-installer.ps1 | iex"
# Downloads mcpick-x86_64-pc-windows-msvc.zip and its .sha256, checks the checksum, and puts
# mcpick.exe in $env:MCPICK_INSTALL_DIR (default: $HOME\.mcpick\bin), adding that folder to the
# user's PATH. MCPICK_VERSION and MCPICK_DOWNLOAD_URL as for the shell installer.
# Not run here (no PowerShell on the build machine): the release workflow runs it on Windows.
$ErrorActionPreference = 'Stop'

if (-not [Environment]::Is64BitOperatingSystem) {
    throw 'mcpick-installer: no prebuilt mcpick for 32-bit Windows; build it from source: cargo install mcpick'
}
$target = 'x86_64-pc-windows-msvc'
$archive = "mcpick-$target.zip"
$version = if ($env:MCPICK_VERSION) { $env:MCPICK_VERSION } else { 'latest' }
$base = if ($env:MCPICK_DOWNLOAD_URL) { $env:MCPICK_DOWNLOAD_URL }
        elseif ($version -eq 'latest') { 'https://github.com/mcpick/mcpick/releases/latest/download' }
        else { "https://github.com/mcpick/mcpick/releases/download/v$($version.TrimStart('v'))" }
$dir = if ($env:MCPICK_INSTALL_DIR) { $env:MCPICK_INSTALL_DIR } else { Join-Path $HOME '.mcpick\bin' }

$tmp = Join-Path ([IO.Path]::GetTempPath()) ("mcpick-" + [Guid]::NewGuid())
New-Item -ItemType Directory -Path $tmp | Out-Null
try {
    Write-Host "mcpick-installer: downloading $archive from $base"
    Invoke-WebRequest "$base/$archive" -OutFile (Join-Path $tmp $archive) -UseBasicParsing
    Invoke-WebRequest "$base/$archive.sha256" -OutFile (Join-Path $tmp "$archive.sha256") -UseBasicParsing
    $expected = ((Get-Content (Join-Path $tmp "$archive.sha256") -Raw).Split(' ')[0]).Trim().ToLower()
    $actual = (Get-FileHash (Join-Path $tmp $archive) -Algorithm SHA256).Hash.ToLower()
    if ($expected -ne $actual) {
        throw "mcpick-installer: the download's checksum is $actual, the release says $expected: nothing was installed"
    }
    Expand-Archive (Join-Path $tmp $archive) -DestinationPath $tmp
    New-Item -ItemType Directory -Force -Path $dir | Out-Null
    Copy-Item (Join-Path $tmp "mcpick-$target\mcpick.exe") (Join-Path $dir 'mcpick.exe') -Force
    $path = [Environment]::GetEnvironmentVariable('Path', 'User')
    if (-not ($path -split ';' | Where-Object { $_ -eq $dir })) {
        [Environment]::SetEnvironmentVariable('Path', "$dir;$path", 'User')
        Write-Host "mcpick-installer: added $dir to your PATH (open a new terminal)"
    }
    Write-Host "mcpick-installer: installed $(& (Join-Path $dir 'mcpick.exe') --version) at $dir"
} finally {
    Remove-Item -Recurse -Force $tmp
}
