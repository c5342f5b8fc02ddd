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
