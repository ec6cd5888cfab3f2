#!/usr/bin/env bash
# Assembles the camera-file corpus that bench/agreement.sh compares against exiftool: every image
# file (JPEG, TIFF, PNG, WebP, HEIC/HEIF, AVIF, JPEG 2000, JPEG XL and every raw format) of three
# public sample collections, at pinned commits, nothing left out by content:
#   - ianare/exif-samples: real camera JPEGs and TIFFs (exif.org's set, GPS, orientation), HEIC;
#   - exiftool/exiftool t/images: one file per maker-note family and per container, raws included
#     (small files whose metadata is intact and whose pixels are mostly cut away);
#   - drewnoakes/metadata-extractor-images: camera JPEGs by maker, raws, HEIC, WebP, AVIF (its
#     synthetic decoder suites ImageTestSuite, PngSuite, BigTIFF and its fuzzing folder are not
#     camera files and are left out).
# Files a clone does not hold (a mirror without its largest blobs) are counted and reported.
# Output: bench/work/camera-corpus/<collection>/<path with / as __>.
# Usage: bench/camera-corpus.sh   (GIT_BASE=https://github.com by default; a folder holding
#        OWNER/NAME git repositories works too, for machines without the network)
set -euo pipefail
cd "$(dirname "$0")/.."
base="${GIT_BASE:-https://github.com}"
work="bench/work/camera-sources"
corpus="bench/work/camera-corpus"
mkdir -p "$work"
rm -rf "$corpus"
mkdir -p "$corpus"
extensions='jpg|jpeg|tif|tiff|png|webp|heic|heif|avif|jp2|j2k|jpf|jxl|dng|crw|cr2|cr3|nef|nrw|arw|sr2|srf|orf|rw2|rwl|raf|pef|x3f|mrw|erf|mef|mos|iiq|3fr|dcr|kdc|srw|raw|k25|fff|mdc'

collect() {  # NAME REPO COMMIT FOLDER EXCLUDE-REGEX
  local name="$1" repo="$2" commit="$3" folder="$4" exclude="$5"
  local clone="$work/$name"
  if [ ! -d "$clone/objects" ]; then
    rm -rf "$clone"
    git clone --quiet --bare "$base/$repo" "$clone"
  fi
  local listed=0 missing=0
  mkdir -p "$corpus/$name"
  while IFS= read -r -d '' path; do
    [[ "${path,,}" =~ \.($extensions)$ ]] || continue
    [ -n "$exclude" ] && [[ "$path" =~ $exclude ]] && continue
    listed=$((listed + 1))
    if git -C "$clone" cat-file -e "$commit:$path" 2>/dev/null; then
      git -C "$clone" cat-file blob "$commit:$path" >"$corpus/$name/${path//\//__}"
    else
      missing=$((missing + 1))
    fi
  done < <(git -C "$clone" ls-tree -r -z --name-only "$commit" -- "$folder")
  echo "$name: $((listed - missing)) files ($missing listed but not in the clone)" >&2
}

collect exif-samples ianare/exif-samples 5332a9cf0220e9c6c93f88a187daa90808051e10 . ''
collect exiftool exiftool/exiftool 38bdbace3037a89d2c332664fc60bddad118958a t/images ''
collect metadata-extractor drewnoakes/metadata-extractor-images 4beba640487802442bc9931fb01274e908102d3a . \
  '(ImageTestSuite|PngSuite|BigTIFF|^fuzzing/|/metadata/(java|dotnet)/)'
echo "corpus: $(find "$corpus" -type f | wc -l) files in $corpus" >&2
