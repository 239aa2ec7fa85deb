export * from './memory'
export * from './palette'
