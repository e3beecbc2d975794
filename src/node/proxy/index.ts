export { NodePortProxy, readyBackends, type NodePortProxyOptions, type Backend } from './nodeport.js';
