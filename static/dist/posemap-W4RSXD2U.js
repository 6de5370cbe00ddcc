import{e as a,f as b,g as c}from"./chunk-XRZDRXBM.js";import"./chunk-DPJCG2C5.js";export{a as loadFleetMap,c as mountPoseMap,b as poseOfPayload};
