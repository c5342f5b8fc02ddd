/** Scales a vector to unit length in place (a zero vector stays zero) and returns it. */
export function l2normalize(vector: Float32Array): Float32Array {
  let norm = 0
  for (let i = 0; i < vector.length; i++) norm += vector[i] * vector[i]
  if (norm > 0) {
    const scale = 1 / Math.sqrt(norm)
    for (let i = 0; i < vector.length; i++) vector[i] *= scale
  }
  return vector
}

/** Cosine similarity (0 when either side is the zero vector). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i]
    na += a[i] * a[i]
    nb += b[i] * b[i]
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0
}
